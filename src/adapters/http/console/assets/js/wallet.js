// Sign-In with Ethereum through the browser's EIP-1193 provider (`window.ethereum`, as wallets
// inject it): the service composes the EIP-4361 message around its nonce, the wallet signs it with
// `personal_sign` (EIP-191), and the service checks the signature. No key ever reaches the page.

import { walletChallenge, walletSignIn } from './api.js';

/** Whether a wallet is present in this browser. */
export function walletAvailable() {
  return typeof window.ethereum === 'object' && window.ethereum !== null && typeof window.ethereum.request === 'function';
}

/** The message's UTF-8 bytes as 0x-hex, the form wallets expect for `personal_sign`. */
function hexOf(text) {
  const bytes = new TextEncoder().encode(text);
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Asks the wallet for its account, fetches the service's challenge for it, has the wallet sign
 * the message and signs in. `onStep(words)` reports each stage. Resolves to the user.
 */
export async function signInWithWallet(onStep) {
  const provider = window.ethereum;
  onStep('Asking the wallet for its account…');
  const accounts = await provider.request({ method: 'eth_requestAccounts' });
  const address = Array.isArray(accounts) ? accounts[0] : null;
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new Error('the wallet gave no account');
  }
  onStep('Fetching a sign-in message from the service…');
  const challenge = await walletChallenge(address);
  onStep('Waiting for the wallet to sign the message…');
  const signature = await provider.request({ method: 'personal_sign', params: [hexOf(challenge.message), address] });
  onStep('Checking the signature…');
  return walletSignIn(address, signature, challenge.message);
}
