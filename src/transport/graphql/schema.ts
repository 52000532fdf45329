import { builder } from './builder.ts';
import './types/account.ts';
import './types/addressBook/index.ts';
import './types/chain/index.ts';
import './types/chart/index.ts';
import './types/identity/index.ts';
import './types/layouts/index.ts';
import './types/ledger/index.ts';
import './types/rateLimits/index.ts';
import './types/serverInfo.ts';
import './types/trading/index.ts';
import './types/triggers/index.ts';
import './types/viewer.ts';
import './types/whiteboards/index.ts';

/** Every type module registers itself on the builder when imported above. */
export const schema = builder.toSchema({ sortSchema: true });
