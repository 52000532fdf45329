/** Balances and ledger transfers over GraphQL, the calls and field names of /v1 (routes/ledger.ts): one type a file. */
import './balance.ts';
import './internalTransferResult.ts';
import './transfer.ts';
