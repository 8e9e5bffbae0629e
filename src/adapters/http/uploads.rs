//! Request bodies that carry a credit document: JSON with a `text`, or `multipart/form-data`
//! with a `file` part (PDF, HTML, DOCX or plain text) and optional `title` and `deal_id` parts.
//!
//! The file's type is its part's `Content-Type`; when a client sends none or
//! `application/octet-stream` (curl does for `.docx`), the file name's extension names it. Either
//! way the domain then checks the bytes against it.

use bytes::Bytes;
use serde_json::json;
use warp::http::StatusCode;

use super::error::{ApiError, RawJson};
use super::unstorable::refuse_unstorable;
use crate::domain::documents::OriginalFile;
use crate::domain::intake::MediaType;

/// A file sent as `multipart/form-data`, with the form's other parts.
#[derive(Debug)]
pub struct UploadForm {
    pub file: OriginalFile,
    pub file_name: Option<String>,
    pub title: Option<String>,
    pub deal_id: Option<i64>,
}

/// The largest request body a document endpoint takes: a file of `upload_max_bytes` with room
/// for the form around it, or the JSON limit, whichever is larger.
pub fn body_limit(json_limit: u64, upload_max_bytes: u64) -> u64 {
    json_limit.max(upload_max_bytes.saturating_add(64 * 1024))
}

/// Whether the body is a form (anything else is read as JSON, which checks its own type).
pub fn is_multipart(body: &RawJson) -> bool {
    body.content_type
        .as_deref()
        .is_some_and(|ct| ct.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("multipart/form-data"))
}

fn unsupported(message: String) -> ApiError {
    ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, message).with_detail(json!({ "accepted": MediaType::accepted() }))
}

/// Parses the form.
///
/// # Errors
/// 400 for a malformed form, a missing `file` part, an unknown part or a bad `deal_id`; 413 for a
/// file over `upload_max_bytes`; 415 for a type that is not accepted.
pub async fn parse_upload_form(body: RawJson, upload_max_bytes: u64) -> Result<UploadForm, ApiError> {
    let mut form = open_form(body, upload_max_bytes)?;
    let (mut file, mut file_name, mut title, mut deal_id) = (None, None, None, None);
    while let Some(field) = form.next_field().await.map_err(|e| form_error(e, upload_max_bytes))? {
        let name = field.name().unwrap_or_default().to_owned();
        match name.as_str() {
            "file" => {
                file_name = field.file_name().map(str::to_owned);
                let declared = field.content_type().map(|m| m.essence_str().to_owned());
                let media_type = media_type_of(declared.as_deref(), file_name.as_deref())?;
                let bytes = field.bytes().await.map_err(|e| form_error(e, upload_max_bytes))?;
                file = Some(OriginalFile::new(media_type, bytes));
            }
            "title" => title = Some(field.text().await.map_err(|e| form_error(e, upload_max_bytes))?),
            "deal_id" => {
                let raw = field.text().await.map_err(|e| form_error(e, upload_max_bytes))?;
                deal_id = Some(deal_id_part(&raw)?);
            }
            other => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("unknown form part '{other}'; the parts are file, title and deal_id"),
                ));
            }
        }
    }
    let file = file.ok_or_else(|| ApiError::invalid_field("file", "the form has no file part"))?;
    if file.bytes.is_empty() {
        return Err(ApiError::invalid_field("file", "the file is empty"));
    }
    refuse_unstorable("title", title.as_deref().unwrap_or_default())?;
    refuse_unstorable("file", file_name.as_deref().unwrap_or_default())?;
    Ok(UploadForm { file, file_name, title, deal_id })
}

/// A form's `deal_id` part: a positive integer.
///
/// # Errors
/// 400 naming `deal_id` otherwise.
pub(crate) fn deal_id_part(raw: &str) -> Result<i64, ApiError> {
    raw.trim()
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| ApiError::invalid_field("deal_id", "must be a positive integer"))
}

/// The parts of a `multipart/form-data` body, each at most `upload_max_bytes`.
///
/// # Errors
/// 400 when the content type has no boundary.
pub(crate) fn open_form(body: RawJson, upload_max_bytes: u64) -> Result<multer::Multipart<'static>, ApiError> {
    let content_type = body.content_type.unwrap_or_default();
    let boundary = multer::parse_boundary(&content_type)
        .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "multipart/form-data needs a boundary parameter"))?;
    let size = multer::SizeLimit::new().per_field(upload_max_bytes);
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(body.bytes) });
    Ok(multer::Multipart::with_constraints(stream, boundary, multer::Constraints::new().size_limit(size)))
}

fn media_type_of(declared: Option<&str>, file_name: Option<&str>) -> Result<MediaType, ApiError> {
    match declared {
        Some(declared) if declared != "application/octet-stream" => MediaType::from_content_type(declared)
            .ok_or_else(|| unsupported(format!("files of type {declared} are not accepted"))),
        _ => file_name.and_then(MediaType::from_file_name).ok_or_else(|| {
            unsupported("the file part has no Content-Type of an accepted type (and its name does not say one)".into())
        }),
    }
}

pub(crate) fn form_error(error: multer::Error, upload_max_bytes: u64) -> ApiError {
    match error {
        multer::Error::FieldSizeExceeded { .. } | multer::Error::StreamSizeExceeded { .. } => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("the file is larger than {upload_max_bytes} bytes"))
                .with_detail(json!({ "field": "file", "max_bytes": upload_max_bytes }))
        }
        other => ApiError::new(StatusCode::BAD_REQUEST, format!("malformed multipart/form-data body: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Name, file name, content type and bytes of a part.
    type Part<'a> = (&'a str, Option<&'a str>, Option<&'a str>, &'a [u8]);

    fn form(parts: &[Part<'_>]) -> RawJson {
        let mut body = Vec::new();
        for (name, file_name, content_type, data) in parts {
            body.extend_from_slice(b"--XyZ\r\n");
            let disposition = match file_name {
                Some(f) => format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n"),
                None => format!("Content-Disposition: form-data; name=\"{name}\"\r\n"),
            };
            body.extend_from_slice(disposition.as_bytes());
            if let Some(ct) = content_type {
                body.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
            }
            body.extend_from_slice(b"\r\n");
            body.extend_from_slice(data);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"--XyZ--\r\n");
        RawJson { content_type: Some("multipart/form-data; boundary=XyZ".into()), bytes: body.into() }
    }

    #[tokio::test]
    async fn a_file_with_title_and_deal() {
        let body = form(&[
            ("file", Some("ca.pdf"), Some("application/pdf"), b"%PDF-1.7"),
            ("title", None, None, b"Northwind CA"),
            ("deal_id", None, None, b"42"),
        ]);
        assert!(is_multipart(&body));
        let upload = parse_upload_form(body, 1024).await.unwrap();
        assert_eq!(upload.file.media_type, MediaType::Pdf);
        assert_eq!((upload.title.as_deref(), upload.deal_id), (Some("Northwind CA"), Some(42)));
    }

    #[tokio::test]
    async fn octet_stream_is_named_by_the_extension_and_unknown_types_are_415() {
        let docx = form(&[("file", Some("ca.DOCX"), Some("application/octet-stream"), b"PK\x03\x04")]);
        assert_eq!(parse_upload_form(docx, 1024).await.unwrap().file.media_type, MediaType::Docx);
        let png = form(&[("file", Some("ca.png"), Some("image/png"), b"\x89PNG")]);
        let error = parse_upload_form(png, 1024).await.unwrap_err();
        assert_eq!(error.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let unnamed = form(&[("file", Some("ca.bin"), None, b"x")]);
        assert_eq!(parse_upload_form(unnamed, 1024).await.unwrap_err().status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }

    #[tokio::test]
    async fn a_large_file_a_missing_file_and_a_stray_part() {
        let large = form(&[("file", Some("ca.txt"), Some("text/plain"), &[b'a'; 2048])]);
        assert_eq!(parse_upload_form(large, 1024).await.unwrap_err().status(), StatusCode::PAYLOAD_TOO_LARGE);
        let no_file = form(&[("title", None, None, b"t")]);
        assert_eq!(parse_upload_form(no_file, 1024).await.unwrap_err().status(), StatusCode::BAD_REQUEST);
        let stray = form(&[("file", Some("a.txt"), Some("text/plain"), b"x"), ("other", None, None, b"y")]);
        assert_eq!(parse_upload_form(stray, 1024).await.unwrap_err().status(), StatusCode::BAD_REQUEST);
        let bad_deal = form(&[("file", Some("a.txt"), Some("text/plain"), b"x"), ("deal_id", None, None, b"-3")]);
        assert_eq!(parse_upload_form(bad_deal, 1024).await.unwrap_err().status(), StatusCode::BAD_REQUEST);
    }
}
