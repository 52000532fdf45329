/** The trading area's types, one a file; each registers the fields that answer it when imported. */
import './balanceUpdate.ts';
import './cancelAllOrdersResult.ts';
import './cancelBatchResult.ts';
import './cancelOrderResult.ts';
import './createOrderResult.ts';
import './deadManSwitch.ts';
import './fill.ts';
import './order.ts';
import './orderBook.ts';
import './orderBookDelta.ts';
import './publicTrade.ts';
import './setAttachedRiskResult.ts';
import './spotConfig.ts';
