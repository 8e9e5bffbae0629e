//! Sign-In with Ethereum over HTTP, with a key that signs inside the test.

use creditflow::domain::auth::ethereum::{EthAddress, sign_message};
use k256::ecdsa::SigningKey;
use serde_json::{Value, json};
use time::Duration;
use time::format_description::well_known::Rfc3339;

use crate::helpers::*;

/// A random key and its checksummed address.
pub(crate) fn wallet() -> (SigningKey, String) {
    let key = loop {
        // A random 32-byte scalar is a valid key unless it is zero or ≥ n (vanishingly rare).
        if let Ok(key) = SigningKey::from_slice(&rand::random::<[u8; 32]>()) {
            break key;
        }
    };
    let address = EthAddress::from_public_key(key.verifying_key()).to_checksum();
    (key, address)
}

async fn challenge(app: &TestApp, address: &str) -> Value {
    let response = app.post("/api/auth/wallet/nonce", None, &json!({ "wallet_address": address })).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

async fn sign_in(app: &TestApp, address: &str, signature: &str, message: &str) -> reqwest::Response {
    app.post(
        "/api/auth/wallet",
        None,
        &json!({ "wallet_address": address, "signature": signature, "message": message }),
    )
    .await
}

/// Asserts a 401 in the error shape and returns its message.
async fn refusal(app: &TestApp, address: &str, signature: &str, message: &str) -> String {
    let body = assert_error(sign_in(app, address, signature, message).await, 401).await;
    body["message"].as_str().expect("message").to_owned()
}

fn message_of(challenge: &Value) -> String {
    challenge["message"].as_str().expect("message").to_owned()
}

#[tokio::test]
async fn a_wallet_signs_in_and_gets_the_default_role() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let challenge = challenge(&app, &address).await;
    let message = message_of(&challenge);
    assert!(message.starts_with("localhost:3000 wants you to sign in with your Ethereum account:\n"));
    assert!(message.contains(&format!("Nonce: {}", challenge["nonce"].as_str().expect("nonce"))));
    let response = sign_in(&app, &address, &sign_message(&key, message.as_bytes()), &message).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["user"]["wallet_address"], address);
    assert_eq!(body["user"]["role"], "viewer", "a new wallet identity gets least privilege");
    assert!(body["user"]["email"].is_null());
    let me: Value = app.get("/api/auth/me", Some(&access_token(&body))).await.json().await.expect("json");
    assert_eq!(me["wallet_address"], address);
}

#[tokio::test]
async fn a_lower_case_address_is_accepted_and_a_bad_checksum_is_not() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let challenge = challenge(&app, &address.to_lowercase()).await;
    let message = message_of(&challenge);
    let signature = sign_message(&key, message.as_bytes());
    let flipped: String = address
        .char_indices()
        .map(|(i, c)| {
            if i > 1 && c.is_ascii_alphabetic() && i == address.rfind(|c: char| c.is_ascii_alphabetic()).unwrap_or(0) {
                if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }
            } else {
                c
            }
        })
        .collect();
    let refused = refusal(&app, &flipped, &signature, &message).await;
    assert!(refused.contains("checksum"), "{refused}");
    assert_eq!(sign_in(&app, &address.to_lowercase(), &signature, &message).await.status(), 200);
}

#[tokio::test]
async fn a_replayed_message_is_refused() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let message = message_of(&challenge(&app, &address).await);
    let signature = sign_message(&key, message.as_bytes());
    assert_eq!(sign_in(&app, &address, &signature, &message).await.status(), 200);
    let refused = refusal(&app, &address, &signature, &message).await;
    assert_eq!(refused, "wallet sign-in failed: nonce has already been used");
}

#[tokio::test]
async fn a_wrong_signature_does_not_spend_the_nonce() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let (onlooker, _) = wallet();
    let message = message_of(&challenge(&app, &address).await);
    // Someone who saw the challenge tries to burn it with a signature of their own.
    let refused = refusal(&app, &address, &sign_message(&onlooker, message.as_bytes()), &message).await;
    assert_eq!(refused, "wallet sign-in failed: signature was not made by wallet_address");
    let owner = sign_in(&app, &address, &sign_message(&key, message.as_bytes()), &message).await;
    assert_eq!(owner.status(), 200, "the owner's signature still redeems the nonce");
}

#[tokio::test]
async fn a_message_for_another_domain_is_refused() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let message = message_of(&challenge(&app, &address).await).replace("localhost:3000", "phishing.example");
    let refused = refusal(&app, &address, &sign_message(&key, message.as_bytes()), &message).await;
    assert!(refused.contains("domain"), "{refused}");
}

#[tokio::test]
async fn an_expired_message_is_refused() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let message = message_of(&challenge(&app, &address).await);
    let signature = sign_message(&key, message.as_bytes());
    app.clock.advance(Duration::minutes(6));
    let refused = refusal(&app, &address, &signature, &message).await;
    assert!(refused.contains("expired"), "{refused}");
}

#[tokio::test]
async fn a_client_composed_message_with_its_own_expiry_is_checked() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let nonce = challenge(&app, &address).await["nonce"].as_str().expect("nonce").to_owned();
    let now = app.clock_now();
    let issued = now.format(&Rfc3339).expect("format");
    let expired = (now - Duration::seconds(1)).format(&Rfc3339).expect("format");
    let message = format!(
        "localhost:3000 wants you to sign in with your Ethereum account:\n{address}\n\nI accept.\n\nURI: https://localhost:3000/login\nVersion: 1\nChain ID: 1\nNonce: {nonce}\nIssued At: {issued}\nExpiration Time: {expired}"
    );
    let refused = refusal(&app, &address, &sign_message(&key, message.as_bytes()), &message).await;
    assert!(refused.contains("Expiration Time"), "{refused}");
}

#[tokio::test]
async fn a_signature_by_another_key_or_for_another_address_is_refused() {
    let app = spawn_app().await;
    let (_, address) = wallet();
    let (intruder, intruder_address) = wallet();
    let message = message_of(&challenge(&app, &address).await);
    let refused = refusal(&app, &address, &sign_message(&intruder, message.as_bytes()), &message).await;
    assert_eq!(refused, "wallet sign-in failed: signature was not made by wallet_address");
    // Claiming the intruder's address with the victim's message fails on the address check.
    let message = message_of(&challenge(&app, &address).await);
    let refused = refusal(&app, &intruder_address, &sign_message(&intruder, message.as_bytes()), &message).await;
    assert!(refused.contains("address"), "{refused}");
}

#[tokio::test]
async fn malformed_signatures_are_refused_with_a_precise_message() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let valid = {
        let message = message_of(&challenge(&app, &address).await);
        sign_message(&key, message.as_bytes())
    };
    for (signature, expected) in [
        ("0x1234", "signature"),
        ("not hex at all", "signature"),
        (&valid[..valid.len() - 2], "signature"),
        (&format!("{}1d", &valid[..valid.len() - 2]), "signature"),
    ] {
        let message = message_of(&challenge(&app, &address).await);
        let refused = refusal(&app, &address, signature, &message).await;
        assert!(refused.contains(expected), "{signature}: {refused}");
    }
}

#[tokio::test]
async fn an_unparseable_message_is_refused() {
    let app = spawn_app().await;
    let (key, address) = wallet();
    let message = "please let me in";
    let refused = refusal(&app, &address, &sign_message(&key, message.as_bytes()), message).await;
    assert!(refused.contains("SIWE message"), "{refused}");
}

#[tokio::test]
async fn a_nonce_request_with_a_bad_address_is_400_naming_the_field() {
    let app = spawn_app().await;
    let response = app.post("/api/auth/wallet/nonce", None, &json!({ "wallet_address": "0x123" })).await;
    let body = assert_error(response, 400).await;
    assert_eq!(body["detail"]["field"], "wallet_address");
}
