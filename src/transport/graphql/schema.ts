import { builder } from './builder.ts';
import './types/account.ts';
import './types/addressBook.ts';
import './types/chain/depositAddress.ts';
import './types/chain/flow.ts';
import './types/chain/flowPage.ts';
import './types/chain/network.ts';
import './types/chain/withdrawAllowList.ts';
import './types/chain/withdrawDestinationCheck.ts';
import './types/chain/withdrawIntent.ts';
import './types/chart/chartDrawing.ts';
import './types/chart/chartDrawingResult.ts';
import './types/chart/chartDrawingSyncResult.ts';
import './types/chart/chartLayer.ts';
import './types/chart/chartLayerChange.ts';
import './types/identity.ts';
import './types/layouts.ts';
import './types/ledger.ts';
import './types/rateLimits.ts';
import './types/serverInfo.ts';
import './types/trading.ts';
import './types/triggers.ts';
import './types/viewer.ts';
import './types/whiteboards.ts';
import './types/whiteboardVersions.ts';

/** Every type module registers itself on the builder when imported above. */
export const schema = builder.toSchema({ sortSchema: true });
