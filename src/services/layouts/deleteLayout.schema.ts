export { layoutParams as deleteLayoutParams } from './getLayout.schema.ts';
