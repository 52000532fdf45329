/** The triggers' types, one a file; each registers the fields that answer it when imported. */
import './canceledTriggers.ts';
import './trigger.ts';
import './triggerEvent.ts';
import './triggerEventPage.ts';
import './triggerPage.ts';
