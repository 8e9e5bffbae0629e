// The device token of each account that signed in from this browser (OWASP's device-cookie scheme):
// sent back with the next password sign-in, it makes the service judge this browser by its own
// failures only, so the owner gets in while the account is being guessed from elsewhere. It cannot
// sign anyone in by itself (the password is still checked), which is why it, unlike the access and
// refresh tokens, may live in localStorage.

const KEY = 'creditflow.device.';

function keyOf(email) {
  return KEY + email.trim().toLowerCase();
}

/** The device token this browser holds for `email`, if any. */
export function knownDevice(email) {
  try {
    return localStorage.getItem(keyOf(email));
  } catch {
    // Storage refused (private mode, a policy): sign in as an unknown device.
    return null;
  }
}

/** Keeps the device token the service handed out for `email` (each sign-in renews it). */
export function rememberDevice(email, token) {
  if (!token) return;
  try {
    localStorage.setItem(keyOf(email), token);
  } catch {
    // Storage refused: the next sign-in is from an unknown device, which still works.
  }
}
