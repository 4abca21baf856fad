//! RFC 3161 time-stamp tokens, verified offline against the time-stamping
//! authority's certificate kept beside them.
//!
//! A token is a CMS `SignedData` whose content is a `TSTInfo`: the TSA's
//! statement that it saw a digest (the *message imprint*) at a time
//! (`genTime`). Verification checks, in order: the response's status (when
//! a whole `TimeStampResp` is kept), the content type, that the imprint is
//! the SHA-256 the caller expects, that the one signer is a kept
//! certificate, the signed attributes (content type and the digest of the
//! `TSTInfo`), the signature (RSA PKCS #1 v1.5 or ECDSA P-256, with SHA-256,
//! -384 or -512), and that the certificate is for time stamping and valid at
//! `genTime`. Whether the certificate belongs to a TSA worth trusting is the
//! reader's call: the result carries its subject and SHA-256 fingerprint.

use cms::cert::IssuerAndSerialNumber;
use cms::content_info::ContentInfo;
use cms::signed_data::{SignedData, SignerIdentifier, SignerInfo};
use der::asn1::{ObjectIdentifier, OctetString};
use der::{Decode, Encode};
use x509_cert::ext::pkix::{ExtendedKeyUsage, SubjectKeyIdentifier};
use x509_cert::Certificate;
use x509_tsp::{TimeStampResp, TstInfo};

use crate::digest::{hex, sha256_hex};
use crate::time::{self, UnixMillis};

const SIGNED_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.2");
const TST_INFO: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.4");
const CONTENT_TYPE: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.3");
const MESSAGE_DIGEST: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.4");
const SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
const SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2");
const SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3");
const RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const RSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11");
const RSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.12");
const RSA_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.13");
const ECDSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2");
const ECDSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.3");
const ECDSA_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.4");
const EXT_KEY_USAGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.37");
const SUBJECT_KEY_ID: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.14");
const KP_TIME_STAMPING: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.8");

/// What a verified token attests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    /// The signing certificate's subject, e.g. `CN=Example TSA,O=Example`.
    pub tsa: String,
    /// When the TSA saw the imprint.
    pub time: UnixMillis,
    /// `time` as the format writes instants.
    pub time_text: String,
    /// The SHA-256 of the signing certificate (DER), lowercase hex.
    pub certificate_sha256: String,
    /// The certificate is its own issuer: nothing but the reader vouches for it.
    pub self_signed: bool,
}

/// Verifies `token` (a DER `TimeStampResp` or a bare `TimeStampToken`)
/// against `certificates` (PEM, one or more, or one DER certificate),
/// expecting the SHA-256 message imprint `imprint`.
pub fn verify(token: &[u8], certificates: &[u8], imprint: &[u8]) -> Result<Timestamp, String> {
    let content = token_content(token)?;
    if content.content_type != SIGNED_DATA {
        return Err(format!(
            "the token holds {}, not CMS signed data",
            content.content_type
        ));
    }
    let signed = content
        .content
        .decode_as::<SignedData>()
        .map_err(|e| format!("the token's signed data does not parse: {e}"))?;
    let encap = &signed.encap_content_info;
    if encap.econtent_type != TST_INFO {
        return Err(format!(
            "the signed content is {}, not a TSTInfo",
            encap.econtent_type
        ));
    }
    let tst_der = encap
        .econtent
        .as_ref()
        .ok_or("the token has no signed content")?
        .decode_as::<OctetString>()
        .map_err(|e| format!("the signed content does not parse: {e}"))?;
    let tst = TstInfo::from_der(tst_der.as_bytes())
        .map_err(|e| format!("the TSTInfo does not parse: {e}"))?;
    let stamped = &tst.message_imprint;
    if stamped.hash_algorithm.oid != SHA256 {
        return Err(format!(
            "the token stamps a {} digest, not SHA-256",
            stamped.hash_algorithm.oid
        ));
    }
    if stamped.hashed_message.as_bytes() != imprint {
        return Err(format!(
            "the token stamps {}, not the registration digest {}",
            hex(stamped.hashed_message.as_bytes()),
            hex(imprint)
        ));
    }
    let kept = load_certificates(certificates)?;
    let signers: Vec<&SignerInfo> = signed.signer_infos.0.iter().collect();
    let [signer] = signers.as_slice() else {
        return Err(format!(
            "the token has {} signers; a time stamp has one",
            signers.len()
        ));
    };
    let cert = kept
        .iter()
        .find(|c| identifies(&signer.sid, c))
        .ok_or("the token was not signed by the certificate kept beside it")?;
    let hash = DigestAlg::of(&signer.digest_alg.oid)?;
    check_signed_attributes(signer, hash, tst_der.as_bytes())?;
    let attrs = signer
        .signed_attrs
        .as_ref()
        .ok_or("the signer has no signed attributes")?
        .to_der()
        .map_err(|e| e.to_string())?;
    check_signature(signer, cert, hash, &attrs)?;
    let time = UnixMillis(tst.gen_time.to_unix_duration().as_millis() as i64);
    check_certificate(cert, time)?;
    let tbs = &cert.tbs_certificate;
    Ok(Timestamp {
        tsa: tbs.subject.to_string(),
        time,
        time_text: time::format(time),
        certificate_sha256: sha256_hex(&cert.to_der().map_err(|e| e.to_string())?),
        self_signed: tbs.subject == tbs.issuer,
    })
}

/// The `ContentInfo` of a response (whose status must grant it) or of a bare token.
fn token_content(token: &[u8]) -> Result<ContentInfo, String> {
    if let Ok(resp) = TimeStampResp::from_der(token) {
        // PKIStatus: 0 granted, 1 granted with modifications.
        let status = resp.status.status as u8;
        if status > 1 {
            return Err(format!(
                "the TSA did not grant the request (status {status})"
            ));
        }
        return resp
            .time_stamp_token
            .ok_or_else(|| "the response holds no token".to_string());
    }
    ContentInfo::from_der(token)
        .map_err(|e| format!("neither a time-stamp response nor a token: {e}"))
}

fn load_certificates(bytes: &[u8]) -> Result<Vec<Certificate>, String> {
    if bytes.starts_with(b"-----") || bytes.iter().take(64).all(u8::is_ascii) {
        let certs = Certificate::load_pem_chain(bytes)
            .map_err(|e| format!("the TSA certificate does not parse as PEM: {e}"))?;
        if certs.is_empty() {
            return Err("no certificate is kept beside the token".into());
        }
        return Ok(certs);
    }
    Certificate::from_der(bytes)
        .map(|c| vec![c])
        .map_err(|e| format!("the TSA certificate does not parse as DER: {e}"))
}

fn identifies(sid: &SignerIdentifier, cert: &Certificate) -> bool {
    let tbs = &cert.tbs_certificate;
    match sid {
        SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
            issuer,
            serial_number,
        }) => *issuer == tbs.issuer && *serial_number == tbs.serial_number,
        SignerIdentifier::SubjectKeyIdentifier(want) => tbs
            .extensions
            .iter()
            .flatten()
            .filter(|e| e.extn_id == SUBJECT_KEY_ID)
            .filter_map(|e| SubjectKeyIdentifier::from_der(e.extn_value.as_bytes()).ok())
            .any(|have| have == *want),
    }
}

#[derive(Debug, Clone, Copy)]
enum DigestAlg {
    Sha256,
    Sha384,
    Sha512,
}

impl DigestAlg {
    fn of(oid: &ObjectIdentifier) -> Result<Self, String> {
        match *oid {
            SHA256 => Ok(Self::Sha256),
            SHA384 => Ok(Self::Sha384),
            SHA512 => Ok(Self::Sha512),
            other => Err(format!("unsupported digest algorithm {other}")),
        }
    }

    fn digest(self, bytes: &[u8]) -> Vec<u8> {
        use sha2::Digest;
        match self {
            Self::Sha256 => sha2::Sha256::digest(bytes).to_vec(),
            Self::Sha384 => sha2::Sha384::digest(bytes).to_vec(),
            Self::Sha512 => sha2::Sha512::digest(bytes).to_vec(),
        }
    }

    /// The DER `DigestInfo` prefix of a PKCS #1 v1.5 signature.
    fn pkcs1_prefix(self) -> &'static [u8] {
        match self {
            Self::Sha256 => &[
                0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x01, 0x05, 0x00, 0x04, 0x20,
            ],
            Self::Sha384 => &[
                0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x02, 0x05, 0x00, 0x04, 0x30,
            ],
            Self::Sha512 => &[
                0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x03, 0x05, 0x00, 0x04, 0x40,
            ],
        }
    }
}

/// The signed attributes name the TSTInfo as content and carry its digest.
fn check_signed_attributes(signer: &SignerInfo, hash: DigestAlg, tst: &[u8]) -> Result<(), String> {
    let attrs = signer
        .signed_attrs
        .as_ref()
        .ok_or("the signer has no signed attributes")?;
    let value = |oid: ObjectIdentifier| {
        attrs
            .iter()
            .find(|a| a.oid == oid)
            .and_then(|a| a.values.iter().next())
    };
    let content_type = value(CONTENT_TYPE)
        .and_then(|v| v.decode_as::<ObjectIdentifier>().ok())
        .ok_or("the signed attributes have no content type")?;
    if content_type != TST_INFO {
        return Err(format!(
            "the signed content type is {content_type}, not TSTInfo"
        ));
    }
    let digest = value(MESSAGE_DIGEST)
        .and_then(|v| v.decode_as::<OctetString>().ok())
        .ok_or("the signed attributes have no message digest")?;
    if digest.as_bytes() != hash.digest(tst) {
        return Err("the signed digest is not the digest of the TSTInfo: the content was changed after signing".into());
    }
    Ok(())
}

fn check_signature(
    signer: &SignerInfo,
    cert: &Certificate,
    hash: DigestAlg,
    message: &[u8],
) -> Result<(), String> {
    let spki = cert
        .tbs_certificate
        .subject_public_key_info
        .to_der()
        .map_err(|e| e.to_string())?;
    let signature = signer.signature.as_bytes();
    let hashed = hash.digest(message);
    let invalid = |e: &dyn std::fmt::Display| format!("the signature does not verify: {e}");
    match signer.signature_algorithm.oid {
        RSA | RSA_SHA256 | RSA_SHA384 | RSA_SHA512 => {
            use rsa::pkcs8::DecodePublicKey;
            let key = rsa::RsaPublicKey::from_public_key_der(&spki)
                .map_err(|e| format!("the certificate's key is not an RSA key: {e}"))?;
            let scheme = rsa::Pkcs1v15Sign {
                hash_len: Some(hashed.len()),
                prefix: hash.pkcs1_prefix().into(),
            };
            key.verify(scheme, &hashed, signature)
                .map_err(|e| invalid(&e))
        }
        ECDSA_SHA256 | ECDSA_SHA384 | ECDSA_SHA512 => {
            use p256::ecdsa::signature::hazmat::PrehashVerifier;
            use p256::pkcs8::DecodePublicKey;
            let key = p256::ecdsa::VerifyingKey::from_public_key_der(&spki)
                .map_err(|e| format!("the certificate's key is not a P-256 key: {e}"))?;
            let sig = p256::ecdsa::Signature::from_der(signature).map_err(|e| invalid(&e))?;
            key.verify_prehash(&hashed, &sig).map_err(|e| invalid(&e))
        }
        other => Err(format!("unsupported signature algorithm {other}")),
    }
}

/// The certificate is for time stamping and was valid when it signed.
fn check_certificate(cert: &Certificate, at: UnixMillis) -> Result<(), String> {
    let tbs = &cert.tbs_certificate;
    let stamping = tbs
        .extensions
        .iter()
        .flatten()
        .filter(|e| e.extn_id == EXT_KEY_USAGE)
        .filter_map(|e| ExtendedKeyUsage::from_der(e.extn_value.as_bytes()).ok())
        .any(|eku| eku.0.contains(&KP_TIME_STAMPING));
    if !stamping {
        return Err(
            "the certificate is not for time stamping (no timeStamping extended key usage)".into(),
        );
    }
    let millis = |t: x509_cert::time::Time| t.to_unix_duration().as_millis() as i64;
    let (from, until) = (
        millis(tbs.validity.not_before),
        millis(tbs.validity.not_after),
    );
    if at.0 < from || at.0 > until {
        return Err(format!(
            "the certificate was not valid at {} (valid {} to {})",
            time::format(at),
            time::format(UnixMillis(from)),
            time::format(UnixMillis(until))
        ));
    }
    Ok(())
}

/// A DER `TimeStampReq` for the SHA-256 `imprint`, asking the TSA to include
/// its certificate; no nonce, so the same registration gives the same request.
pub fn request(imprint: &[u8]) -> Result<Vec<u8>, String> {
    use x509_tsp::{MessageImprint, TimeStampReq, TspVersion};
    let req = TimeStampReq {
        version: TspVersion::V1,
        message_imprint: MessageImprint {
            hash_algorithm: x509_cert::spki::AlgorithmIdentifier {
                oid: SHA256,
                parameters: Some(der::asn1::Null.into()),
            },
            hashed_message: OctetString::new(imprint).map_err(|e| e.to_string())?,
        },
        req_policy: None,
        nonce: None,
        cert_req: true,
        extensions: None,
    };
    req.to_der().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_the_der_rfc_3161_gives() {
        let imprint = [0xab_u8; 32];
        let der = request(&imprint).expect("request");
        let mut want = vec![
            0x30, 0x39, 0x02, 0x01, 0x01, 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09,
        ];
        want.extend([
            0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00,
        ]);
        want.extend([0x04, 0x20]);
        want.extend(imprint);
        want.extend([0x01, 0x01, 0xff]);
        assert_eq!(der, want);
    }

    #[test]
    fn bytes_that_are_no_token_say_so() {
        let err = verify(b"not a token", b"", &[0; 32]).expect_err("garbage");
        assert!(
            err.contains("neither a time-stamp response nor a token"),
            "{err}"
        );
    }

    #[test]
    fn a_digest_decodes_only_from_its_hex_form() {
        let hex = "00".repeat(31) + "ff";
        let bytes = crate::anchor::digest_bytes(&hex).expect("hex");
        assert_eq!((bytes.len(), bytes[31]), (32, 0xff));
        assert_eq!(crate::anchor::digest_bytes("FF"), None);
    }
}
