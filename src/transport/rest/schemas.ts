/** Request fragments several /v1 routes share (defined beside the operations' schemas). */
export { pageQuery, subaccountIdField } from '../../services/inputCodec.ts';
