export { crosses, directionOf, type Direction, type StopKind } from './stop.ts';
export { TriggerBook, type ArmedTrigger } from './triggerBook.ts';
