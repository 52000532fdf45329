/** Sign-in, terms, subaccounts and API keys: one type a file; each registers the fields that answer it when imported. */
import './apiKey.ts';
import './apiPolicy.ts';
import './session.ts';
import './subaccount.ts';
import './terms.ts';
import './walletNonce.ts';
