/** Deposit addresses, flows and withdrawals over GraphQL, the calls and field names of /v1 (routes/chain.ts): one type a file. */
import './depositAddress.ts';
import './flow.ts';
import './flowPage.ts';
import './network.ts';
import './withdrawAllowList.ts';
import './withdrawDestinationCheck.ts';
import './withdrawIntent.ts';
