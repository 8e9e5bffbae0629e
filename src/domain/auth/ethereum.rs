//! Ethereum primitives for wallet sign-in: Keccak-256, EIP-191 personal-message hashing,
//! EIP-55 checksummed addresses and secp256k1 signer recovery.

use std::fmt;

use k256::ecdsa::{RecoveryId, Signature, SigningKey, VerifyingKey};
use sha3::{Digest, Keccak256};

/// Keccak-256 as used by Ethereum (the original Keccak padding, not NIST SHA3-256).
#[must_use]
pub fn keccak256(bytes: &[u8]) -> [u8; 32] {
    Keccak256::digest(bytes).into()
}

/// EIP-191 (version 0x45, "personal_sign") hash of `message`:
/// keccak256(0x19 ‖ "Ethereum Signed Message:\n" ‖ decimal byte length ‖ message).
#[must_use]
pub fn eip191_hash(message: &[u8]) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    hasher.update(b"\x19Ethereum Signed Message:\n");
    hasher.update(message.len().to_string().as_bytes());
    hasher.update(message);
    hasher.finalize().into()
}

/// Why a wallet address string was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("wallet address must start with 0x")]
    MissingPrefix,
    #[error("wallet address must have exactly 40 hex digits after 0x")]
    BadLength,
    #[error("wallet address must contain only hex digits after 0x")]
    NotHex,
    #[error("wallet address mixes upper and lower case but fails the EIP-55 checksum")]
    BadChecksum,
}

/// A 20-byte Ethereum account address.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct EthAddress([u8; 20]);

impl EthAddress {
    /// Parses `0x` followed by exactly 40 hex digits.
    ///
    /// All-lowercase and all-uppercase forms carry no checksum and are accepted as is; a
    /// mixed-case form claims to be EIP-55 and must match the checksum, so that a mistyped
    /// character is caught instead of silently naming another account.
    pub fn parse(raw: &str) -> Result<EthAddress, AddressError> {
        let digits = raw.strip_prefix("0x").ok_or(AddressError::MissingPrefix)?;
        if digits.len() != 40 {
            return Err(AddressError::BadLength);
        }
        let mut bytes = [0u8; 20];
        hex::decode_to_slice(digits, &mut bytes).map_err(|_| AddressError::NotHex)?;

        let has_lower = digits.bytes().any(|b| b.is_ascii_lowercase());
        let has_upper = digits.bytes().any(|b| b.is_ascii_uppercase());
        let address = EthAddress(bytes);
        if has_lower && has_upper && address.to_checksum().get(2..) != Some(digits) {
            return Err(AddressError::BadChecksum);
        }
        Ok(address)
    }

    /// EIP-55 mixed-case checksum form, `0x` prefixed.
    #[must_use]
    pub fn to_checksum(&self) -> String {
        let lower = hex::encode(self.0);
        let hash = keccak256(lower.as_bytes());
        let mut out = String::with_capacity(42);
        out.push_str("0x");
        // Hex digit i is upper-cased iff nibble i of the hash is >= 8; each hash byte covers
        // two digits.
        for (digits, byte) in lower.as_bytes().chunks(2).zip(hash) {
            for (digit, nibble) in digits.iter().zip([byte >> 4, byte & 0x0f]) {
                let digit = if nibble >= 8 { digit.to_ascii_uppercase() } else { *digit };
                out.push(char::from(digit));
            }
        }
        out
    }

    /// The address with these 20 bytes (as a store keeps it).
    #[must_use]
    pub fn from_bytes(bytes: [u8; 20]) -> EthAddress {
        EthAddress(bytes)
    }

    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }

    /// The address controlled by `key`: the last 20 bytes of keccak256 of the uncompressed
    /// public key without its leading 0x04 tag.
    #[must_use]
    pub fn from_public_key(key: &VerifyingKey) -> EthAddress {
        let point = key.to_sec1_point(false);
        // An uncompressed point is always 65 bytes, so the fallback is unreachable; it only
        // keeps this function free of a panicking index.
        let xy = point.as_bytes().get(1..).unwrap_or_default();
        let hash = keccak256(xy);
        let mut bytes = [0u8; 20];
        bytes.copy_from_slice(&hash[12..]);
        EthAddress(bytes)
    }
}

impl fmt::Display for EthAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_checksum())
    }
}

/// Why a wallet signature was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("signature must start with 0x")]
    MissingPrefix,
    #[error("signature must contain only hex digits after 0x")]
    NotHex,
    /// `got` counts hex digits after `0x`, so odd lengths can be reported too.
    #[error("signature must be 65 bytes (130 hex digits after 0x), got {got} hex digits")]
    BadLength { got: usize },
    #[error("signature recovery byte v must be 27 or 28 (or 0 or 1), got {0}")]
    BadRecoveryId(u8),
    #[error("signature has a high s value (malleable form); only the canonical low-s form is accepted")]
    HighS,
    #[error("signature is invalid: r or s is out of range, or no public key can be recovered")]
    Invalid,
}

/// Recovers the address that produced `signature_hex` (`0x` ‖ r ‖ s ‖ v, 65 bytes) over the
/// EIP-191 hash of `message`.
///
/// The caller must still compare the result with the claimed address: any well-formed
/// signature recovers *some* address.
pub fn recover_signer(message: &[u8], signature_hex: &str) -> Result<EthAddress, SignatureError> {
    let digits = signature_hex.strip_prefix("0x").ok_or(SignatureError::MissingPrefix)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SignatureError::NotHex);
    }
    let mut raw = [0u8; 65];
    if digits.len() != raw.len() * 2 {
        return Err(SignatureError::BadLength { got: digits.len() });
    }
    hex::decode_to_slice(digits, &mut raw).map_err(|_| SignatureError::NotHex)?;

    let (rs, v) = raw.split_at(64);
    let v = v.first().copied().unwrap_or_default();
    // Wallets disagree on the encoding of v: legacy personal_sign adds 27, hardware wallets
    // and some libraries emit the bare parity. Recovery ids 2 and 3 (r overflowed the group
    // order) cannot be expressed in Ethereum's v and are practically unreachable.
    let y_is_odd = match v {
        27 | 0 => false,
        28 | 1 => true,
        other => return Err(SignatureError::BadRecoveryId(other)),
    };

    let signature = Signature::from_slice(rs).map_err(|_| SignatureError::Invalid)?;
    // k256 recovers from high-s signatures without complaint, yet (r, n - s) with flipped v is
    // a second valid signature over the same message; accepting both would let anyone mint a
    // fresh-looking signature from an observed one.
    if signature.normalize_s() != signature {
        return Err(SignatureError::HighS);
    }

    let key = VerifyingKey::recover_from_prehash(&eip191_hash(message), &signature, RecoveryId::new(y_is_odd, false))
        .map_err(|_| SignatureError::Invalid)?;
    Ok(EthAddress::from_public_key(&key))
}

/// Signs `message` the way a wallet's `personal_sign` does and returns `0x` ‖ r ‖ s ‖ v with
/// v = 27/28, using RFC 6979 deterministic nonces (same key and message, same signature).
///
/// The service itself never signs; this exists for tests, benchmarks and client tooling that
/// need signatures a real wallet would produce.
#[must_use]
pub fn sign_message(key: &SigningKey, message: &[u8]) -> String {
    // k256 (secp256k1 has NORMALIZE_S) already returns low-s and adjusts the recovery id to
    // match, which is what Ethereum requires; no second normalisation is needed.
    let (signature, recovery_id) = key.sign_prehash_recoverable(&eip191_hash(message));
    let mut raw = [0u8; 65];
    raw[..64].copy_from_slice(&signature.to_bytes());
    raw[64] = 27 + u8::from(recovery_id.is_y_odd());
    format!("0x{}", hex::encode(raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k256::Scalar;

    const KEY_1: &str = "1da6847600b0ee25e9ad9a52abbd786dd2502fa4005dd5af9310b7cc7a3b25db";
    const ADDRESS_1: &str = "0x71CB05EE1b1F506fF321Da3dac38f25c0c9ce6E1";
    const HASH_1: &str = "a1de988600a42c4b4ab089b619297c17d53cffae5d5120d82d8a92d0bb3b78f2";
    const SIGNATURE_1: &str = "0x14280e5885a19f60e536de50097e96e3738c7acae4e9e62d67272d794b8127d31c03d9cd59781d4ee31fb4e1b893bd9b020ec67dfa65cfb51e2bdadbb1de26d91c";

    const KEY_2: &str = "4af1bceebf7f3634ec3cff8a2c38e51178d5d4ce585c52d6043e5e2cc3418bb0";
    const ADDRESS_2: &str = "0x29C76e6aD8f28BB1004902578Fb108c507Be341b";
    const HASH_2: &str = "d9eba16ed0ecae432b71fe008c98cc872bb4cc214d3220a36f365326cf807d68";
    const SIGNATURE_2: &str = "0x51beb1bb7bac43e257f5759efaf9b7f3ab3e0b1849d087ceef6d91d06f9a1dde70eca37e363e30f702fc5f0dfd74f67db18e3fd3751a317b9a46549b67857bc11b";

    const EIP55_EXAMPLES: [&str; 4] = [
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
        "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ];

    fn key(hex_key: &str) -> SigningKey {
        let bytes = hex::decode(hex_key).expect("test key is hex");
        SigningKey::from_slice(&bytes).expect("test key is a valid scalar")
    }

    fn decode_signature(signature: &str) -> [u8; 65] {
        let mut raw = [0u8; 65];
        hex::decode_to_slice(&signature[2..], &mut raw).expect("test signature is hex");
        raw
    }

    fn encode_signature(raw: &[u8; 65]) -> String {
        format!("0x{}", hex::encode(raw))
    }

    #[test]
    fn keccak256_of_empty_input_is_the_ethereum_constant_not_sha3() {
        assert_eq!(hex::encode(keccak256(b"")), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    }

    #[test]
    fn eip191_hash_matches_the_hello_world_vectors() {
        assert_eq!(hex::encode(eip191_hash(b"Hello World")), HASH_1);
        assert_eq!(hex::encode(eip191_hash(b"hello world")), HASH_2);
    }

    #[test]
    fn private_keys_derive_their_known_addresses() {
        for (secret, address) in [
            (KEY_1, ADDRESS_1),
            (KEY_2, ADDRESS_2),
            (
                "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
                "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
            ),
        ] {
            let derived = EthAddress::from_public_key(key(secret).verifying_key());
            assert_eq!(derived.to_checksum(), address);
        }
    }

    #[test]
    fn sign_message_reproduces_the_deterministic_vectors() {
        assert_eq!(sign_message(&key(KEY_1), b"Hello World"), SIGNATURE_1);
        assert_eq!(sign_message(&key(KEY_2), b"hello world"), SIGNATURE_2);
    }

    #[test]
    fn recover_signer_returns_the_address_that_signed_the_vectors() {
        let signer_1 = recover_signer(b"Hello World", SIGNATURE_1).expect("valid signature");
        assert_eq!(signer_1.to_checksum(), ADDRESS_1);
        let signer_2 = recover_signer(b"hello world", SIGNATURE_2).expect("valid signature");
        assert_eq!(signer_2.to_checksum(), ADDRESS_2);
    }

    #[test]
    fn recover_signer_accepts_uppercase_hex_signatures() {
        let upper = format!("0x{}", SIGNATURE_1[2..].to_ascii_uppercase());
        let signer = recover_signer(b"Hello World", &upper).expect("valid signature");
        assert_eq!(signer.to_checksum(), ADDRESS_1);
    }

    #[test]
    fn a_signature_over_a_different_message_recovers_a_different_address() {
        let signer = recover_signer(b"Hello World!", SIGNATURE_1).expect("well-formed signature");
        assert_ne!(signer.to_checksum(), ADDRESS_1);
    }

    #[test]
    fn v_of_0_and_1_is_accepted_as_27_and_28() {
        for signature in [SIGNATURE_1, SIGNATURE_2] {
            let canonical = decode_signature(signature);
            let mut bare = canonical;
            bare[64] -= 27;
            assert!(bare[64] == 0 || bare[64] == 1);
            let message: &[u8] = if signature == SIGNATURE_1 { b"Hello World" } else { b"hello world" };
            assert_eq!(recover_signer(message, &encode_signature(&bare)), recover_signer(message, signature));
        }
    }

    #[test]
    fn v_of_29_is_rejected_as_a_bad_recovery_id() {
        let mut raw = decode_signature(SIGNATURE_1);
        raw[64] = 29;
        assert_eq!(recover_signer(b"Hello World", &encode_signature(&raw)), Err(SignatureError::BadRecoveryId(29)));
    }

    #[test]
    fn the_high_s_twin_of_a_valid_signature_is_rejected_although_k256_would_recover_it() {
        let raw = decode_signature(SIGNATURE_1);
        let signature = Signature::from_slice(&raw[..64]).expect("valid signature");
        let high_s: Scalar = -*signature.s();
        let mut twin = raw;
        twin[32..64].copy_from_slice(&high_s.to_bytes());
        twin[64] = 55 - raw[64]; // 27 <-> 28

        // The twin is a genuine signature: the library recovers the same key from it.
        let twin_signature = Signature::from_slice(&twin[..64]).expect("in range");
        let recovered = VerifyingKey::recover_from_prehash(
            &eip191_hash(b"Hello World"),
            &twin_signature,
            RecoveryId::new(twin[64] == 28, false),
        )
        .expect("k256 accepts high-s");
        assert_eq!(EthAddress::from_public_key(&recovered).to_checksum(), ADDRESS_1);

        assert_eq!(recover_signer(b"Hello World", &encode_signature(&twin)), Err(SignatureError::HighS));
    }

    #[test]
    fn signatures_of_the_wrong_length_are_rejected_with_the_length_found() {
        assert_eq!(recover_signer(b"Hello World", &SIGNATURE_1[..130]), Err(SignatureError::BadLength { got: 128 }));
        assert_eq!(
            recover_signer(b"Hello World", &format!("{SIGNATURE_1}00")),
            Err(SignatureError::BadLength { got: 132 })
        );
        assert_eq!(recover_signer(b"Hello World", &SIGNATURE_1[..131]), Err(SignatureError::BadLength { got: 129 }));
        assert_eq!(recover_signer(b"Hello World", "0x"), Err(SignatureError::BadLength { got: 0 }));
    }

    #[test]
    fn signatures_with_non_hex_characters_are_rejected() {
        let bad = format!("0x{}zz", &SIGNATURE_1[2..130]);
        assert_eq!(recover_signer(b"Hello World", &bad), Err(SignatureError::NotHex));
        // 130 bytes of multi-byte characters must not trip a char-boundary panic.
        let unicode = format!("0x{}", "é".repeat(65));
        assert_eq!(recover_signer(b"Hello World", &unicode), Err(SignatureError::NotHex));
    }

    #[test]
    fn signatures_without_the_0x_prefix_are_rejected() {
        assert_eq!(recover_signer(b"Hello World", &SIGNATURE_1[2..]), Err(SignatureError::MissingPrefix));
        assert_eq!(recover_signer(b"Hello World", ""), Err(SignatureError::MissingPrefix));
    }

    #[test]
    fn signatures_with_r_or_s_out_of_range_are_invalid() {
        let raw = decode_signature(SIGNATURE_1);
        let mut zero_r = raw;
        zero_r[..32].fill(0);
        let mut zero_s = raw;
        zero_s[32..64].fill(0);
        let mut huge_r = raw;
        huge_r[..32].fill(0xff);
        for tampered in [zero_r, zero_s, huge_r] {
            assert_eq!(recover_signer(b"Hello World", &encode_signature(&tampered)), Err(SignatureError::Invalid));
        }
    }

    #[test]
    fn eip55_examples_round_trip_through_parse_and_checksum() {
        for example in EIP55_EXAMPLES {
            let address = EthAddress::parse(example).expect("valid EIP-55 address");
            assert_eq!(address.to_checksum(), example);
            assert_eq!(address.to_string(), example);
        }
    }

    #[test]
    fn flipping_the_case_of_any_single_letter_breaks_the_checksum() {
        for example in EIP55_EXAMPLES {
            for (i, c) in example.char_indices().skip(2) {
                if !c.is_ascii_alphabetic() {
                    continue;
                }
                let flipped_char = if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
                let mut flipped = example.to_string();
                flipped.replace_range(i..=i, &flipped_char.to_string());
                assert_eq!(EthAddress::parse(&flipped), Err(AddressError::BadChecksum), "{flipped}");
            }
        }
    }

    #[test]
    fn all_lowercase_and_all_uppercase_addresses_are_accepted_without_checksum() {
        for example in EIP55_EXAMPLES {
            let expected = EthAddress::parse(example).expect("valid");
            let lower = example.to_ascii_lowercase();
            assert_eq!(EthAddress::parse(&lower), Ok(expected));
            let upper = format!("0x{}", example[2..].to_ascii_uppercase());
            assert_eq!(EthAddress::parse(&upper), Ok(expected));
        }
    }

    #[test]
    fn malformed_addresses_are_rejected_with_the_specific_reason() {
        let example = EIP55_EXAMPLES[0];
        assert_eq!(EthAddress::parse(&example[2..]), Err(AddressError::MissingPrefix));
        assert_eq!(EthAddress::parse(&format!("0X{}", &example[2..])), Err(AddressError::MissingPrefix));
        assert_eq!(EthAddress::parse(&example[..41]), Err(AddressError::BadLength));
        assert_eq!(EthAddress::parse(&format!("{example}0")), Err(AddressError::BadLength));
        assert_eq!(EthAddress::parse("0x"), Err(AddressError::BadLength));
        assert_eq!(EthAddress::parse(&format!("0x{}", "g".repeat(40))), Err(AddressError::NotHex));
        assert_eq!(EthAddress::parse(&format!("0x{}", "é".repeat(20))), Err(AddressError::NotHex));
    }

    #[test]
    fn address_errors_read_as_human_messages() {
        assert_eq!(AddressError::MissingPrefix.to_string(), "wallet address must start with 0x");
        assert_eq!(
            SignatureError::BadLength { got: 4 }.to_string(),
            "signature must be 65 bytes (130 hex digits after 0x), got 4 hex digits"
        );
    }

    #[test]
    fn as_bytes_exposes_the_raw_twenty_bytes() {
        let address = EthAddress::parse(ADDRESS_1).expect("valid");
        assert_eq!(hex::encode(address.as_bytes()), ADDRESS_1[2..].to_ascii_lowercase());
    }
}
