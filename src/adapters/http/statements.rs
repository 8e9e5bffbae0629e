//! Supplied financial statements on the wire: `/api/financial-statements` (store a borrower's
//! statement set, read it back), and the `financials` object the analyses accept, with an OpenAPI
//! schema generated from the same item table the domain checks against ([`StatementItem`]), so the
//! documented fields, units and signs cannot drift from what is accepted.

use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::json;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, schema::AdditionalProperties};
use utoipa::{PartialSchema, ToSchema};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::error::{ApiError, ErrorBody, RawJson, raw_json_body};
use super::filters::{authenticated, decorate_with_rate_limit, document_writes_limited, with_state};
use super::unstorable::refuse_unstorable;
use super::uploads::{body_limit, deal_id_part, form_error, is_multipart, open_form};
use crate::adapters::reader::spreadsheet::SheetFormat;
use crate::domain::auth::Principal;
use crate::domain::intake::ReadError;
use crate::domain::statements::service::{SetSubject, SheetUpload, StatementSetError};
use crate::domain::statements::sheet::{Grid, UnrecognisedRow};
use crate::domain::statements::stored::StatementSetId;
use crate::domain::statements::{FinancialsInput, StatementItem};

/// The `financials` object of an analysis request.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct ApiFinancials(pub FinancialsInput);

impl PartialSchema for ApiFinancials {
    fn schema() -> RefOr<Schema> {
        let mut period = ObjectBuilder::new()
            .property(
                "period_end",
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::String))
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Date)))
                    .description(Some("last day of the period, YYYY-MM-DD")),
            )
            .required("period_end")
            .property(
                "months",
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::Integer))
                    .minimum(Some(1))
                    .maximum(Some(12))
                    .description(Some(
                        "12 for a fiscal year, 3 for a quarter, else the length of a year-to-date period",
                    )),
            )
            .required("months")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        for item in StatementItem::ALL {
            let mut number = ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::Number))
                .description(Some(format!("{}; in the set's currency, multiplied by `unit`", item.description())));
            if item.sign() == crate::domain::statements::Sign::NonNegative {
                number = number.minimum(Some(0));
            }
            period = period.property(item.name(), number);
            if item.required() {
                period = period.required(item.name());
            }
        }
        ObjectBuilder::new()
            .description(Some(
                "The borrower's own statements. Every balance sheet must balance (total_assets = total_liabilities + \
                 total_equity within 1%), periods come in date order without repeats, at least one period is a fiscal \
                 year (months 12); nothing is corrected silently.",
            ))
            .property(
                "currency",
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::String))
                    .pattern(Some("^[A-Z]{3}$"))
                    .description(Some("ISO 4217 code of every amount")),
            )
            .required("currency")
            .property(
                "unit",
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::Number))
                    .enum_values(Some([json!(1), json!(1000), json!(1000000)]))
                    .description(Some("what every amount is multiplied by (default 1)")),
            )
            .property(
                "periods",
                ArrayBuilder::new()
                    .items(period)
                    .min_items(Some(1))
                    .max_items(Some(crate::domain::statements::set::MAX_PERIODS)),
            )
            .required("periods")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for ApiFinancials {
    fn name() -> std::borrow::Cow<'static, str> {
        "Financials".into()
    }
}

/// `POST /api/financial-statements` as a form: the analyst's spreadsheet.
#[derive(ToSchema)]
#[allow(dead_code)] // Documents the form; the handler reads it part by part.
pub struct StatementSheetForm {
    /// XLSX or CSV: line items down the first column, one column per period with its end in the
    /// header row ("Dec 31, 2023", "Three months ended March 31, 2024", "FY2023"); "in thousands"
    /// / "in millions" or a units row honoured; labels matched through the documented synonym
    /// table and the qualifiers people write around them ("Operating income (EBIT)", "Revenue,
    /// net"); unknown rows listed in `unrecognised`, never guessed, with `not_used_as` and `reason`
    /// for a label whose qualifier changes the figure ("Interest expense, net").
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    pub borrower_name: String,
    pub deal_id: Option<i64>,
    /// ISO 4217, when the sheet does not state its currency.
    pub currency: Option<String>,
}

/// `POST /api/financial-statements` as JSON.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateStatementSetRequest {
    pub borrower_name: String,
    pub deal_id: Option<i64>,
    pub financials: ApiFinancials,
}

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let create = warp::path!("api" / "financial-statements")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state.clone()))
        .and(raw_json_body(body_limit(state.max_body_bytes, state.upload_max_bytes)))
        .then(|state, caller, decision, body| async move {
            decorate_with_rate_limit(decision, respond(create_statement_set(state, caller, body).await))
        });
    let get = warp::path!("api" / "financial-statements" / String)
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .then(get_statement_set);
    let delete = warp::path!("api" / "financial-statements" / String)
        .and(warp::delete())
        .and(with_state(state.clone()))
        .and(document_writes_limited(state))
        .then(|id, state, caller, decision| async move {
            decorate_with_rate_limit(decision, respond(delete_statement_set(id, state, caller).await))
        });
    create.or(get.map(respond)).unify().or(delete).unify().boxed()
}

impl From<StatementSetError> for ApiError {
    fn from(error: StatementSetError) -> Self {
        match error {
            StatementSetError::Validation { field, message } => ApiError::invalid_field(&field, message),
            StatementSetError::MissingItem { field, message, unrecognised } => {
                missing_item(&field, message, &unrecognised)
            }
            StatementSetError::Unreadable(reason) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("the spreadsheet cannot be read as financial statements: {reason}"),
            )
            .with_detail(json!({ "field": "file", "reason": reason })),
            StatementSetError::NotFound => ApiError::not_found("statement set not found"),
            StatementSetError::QuotaExceeded(exceeded) => super::documents::quota_exceeded(exceeded),
            StatementSetError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

/// Unread rows a missing-item 400 lists: enough to find the row, not the whole sheet.
const LISTED_ROWS: usize = 10;

/// Characters of a listed row's label.
const LISTED_LABEL_CHARS: usize = 60;

/// A spreadsheet label as a message shows it: on one line, cut to [`LISTED_LABEL_CHARS`].
fn shown_label(label: &str) -> String {
    let one_line: String = label.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= LISTED_LABEL_CHARS {
        return one_line.to_owned();
    }
    let cut: String = one_line.chars().take(LISTED_LABEL_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// 400 for a sheet period without a required item, listing the rows that were not read (those
/// that look like the missing item first) in the message and in `detail.unrecognised`.
fn missing_item(field: &str, reason: String, unrecognised: &[UnrecognisedRow]) -> ApiError {
    let listed = &unrecognised[..unrecognised.len().min(LISTED_ROWS)];
    let described: Vec<String> = listed
        .iter()
        .map(|row| {
            let label = match shown_label(&row.label) {
                empty if empty.is_empty() => "(no label)".to_owned(),
                label => format!("'{label}'"),
            };
            match &row.not_used {
                Some(not_used) => format!(
                    "row {} {label} looks like {} but is not used: {}",
                    row.row,
                    not_used.resembles.name(),
                    not_used.reason
                ),
                None => format!("row {} {label}", row.row),
            }
        })
        .collect();
    let rows = match unrecognised.len() {
        0 => "every row with figures was read, so the sheet has no row for it".to_owned(),
        total if total > listed.len() => {
            format!("rows not recognised: {}; and {} more", described.join("; "), total - listed.len())
        }
        _ => format!("rows not recognised: {}", described.join("; ")),
    };
    let rows_json: Vec<serde_json::Value> = listed
        .iter()
        .map(|row| {
            let mut shown = json!({ "row": row.row, "label": shown_label(&row.label) });
            if let Some(not_used) = &row.not_used {
                shown["not_used_as"] = json!(not_used.resembles.name());
                shown["reason"] = json!(not_used.reason);
            }
            shown
        })
        .collect();
    ApiError::new(StatusCode::BAD_REQUEST, format!("invalid {field}: {reason}; {rows}")).with_detail(json!({
        "field": field,
        "reason": reason,
        "unrecognised": rows_json,
        "unrecognised_count": unrecognised.len(),
    }))
}

/// POST /api/financial-statements
#[utoipa::path(post, path = "/api/financial-statements", tag = "financial-statements",
    request_body(content((CreateStatementSetRequest = "application/json"), (StatementSheetForm = "multipart/form-data"))),
    description = "Stores a borrower's financial statements (owned by the caller, optionally tied to a deal), checked \
                   as the analyses check `financials`: a set that does not balance, a negative revenue or debt, a \
                   missing required item, periods out of order or repeated are a 400 naming the period and field, \
                   and nothing is stored. For a spreadsheet missing a required item, the 400 also lists the rows \
                   that were not read (`detail.unrecognised`: row, label, and `not_used_as` with the `reason` when a \
                   label looks like an item whose figure it is not, such as 'Interest expense, net'). Analyses then take `statement_set_id`; a loan application on the deal uses \
                   the deal's newest set when the borrower has no SEC filings. Answers `{statement_set_id, periods, \
                   recognised, unrecognised, …}` with amounts in units of the currency.",
    responses(
        (status = 201, description = "Stored", body = Object),
        (status = 400, description = "Statements that do not hold together, invalid field", body = ErrorBody),
        (status = 413, description = "File larger than UPLOAD_MAX_BYTES", body = ErrorBody),
        (status = 415, description = "Not XLSX or CSV, or bytes that are not the declared type", body = ErrorBody),
        (status = 422, description = "A spreadsheet that cannot be read (corrupt, zip bomb, no header row, …)", body = ErrorBody),
    ))]
pub async fn create_statement_set(
    state: Arc<AppState>,
    caller: Principal,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
    if is_multipart(&body) {
        let form = parse_sheet_form(body, state.upload_max_bytes).await?;
        let grid = read_sheet(&state, caller, form.format, form.bytes).await?;
        let subject = SetSubject { borrower_name: form.borrower_name, deal_id: form.deal_id };
        let upload = SheetUpload {
            grid: &grid,
            file_name: &form.file_name,
            format: match form.format {
                SheetFormat::Xlsx => "xlsx",
                SheetFormat::Csv => "csv",
            },
            currency: form.currency.as_deref(),
        };
        let record = state.statement_sets.create_from_sheet(caller, subject, upload).await?;
        return Ok(warp::reply::with_status(warp::reply::json(&record.json()), StatusCode::CREATED));
    }
    let request: CreateStatementSetRequest = body.parse()?;
    let subject = SetSubject { borrower_name: request.borrower_name, deal_id: request.deal_id };
    let record = state.statement_sets.create_from_json(caller, subject, &request.financials.0).await?;
    Ok(warp::reply::with_status(warp::reply::json(&record.json()), StatusCode::CREATED))
}

/// GET /api/financial-statements/{statement_set_id}
#[utoipa::path(get, path = "/api/financial-statements/{statement_set_id}", tag = "financial-statements",
    params(("statement_set_id" = String, Path, description = "As returned when the set was stored")),
    description = "A stored statement set: its periods with every figure, the rows a spreadsheet was read from and \
                   those it could not place. Unknown or someone else's: 404.",
    responses(
        (status = 200, description = "The set", body = Object),
        (status = 404, description = "No such set", body = ErrorBody),
    ))]
pub async fn get_statement_set(
    raw_id: String,
    state: Arc<AppState>,
    caller: Principal,
) -> Result<impl Reply, ApiError> {
    let id: StatementSetId = raw_id.parse().map_err(|_| ApiError::not_found("statement set not found"))?;
    let record = state.statement_sets.get(caller, id).await?;
    Ok(warp::reply::json(&record.json()))
}

/// DELETE /api/financial-statements/{statement_set_id}
#[utoipa::path(delete, path = "/api/financial-statements/{statement_set_id}", tag = "financial-statements",
    params(("statement_set_id" = String, Path, description = "As returned when the set was stored")),
    description = "Deletes the set (the owner or an administrator). What it was stays in the audit trail \
                   (`GET /api/admin/deletions`: borrower, deal, periods, a SHA-256 of the figures, who deleted it \
                   and when), not its figures; its owner's storage quota gets back what it took. Analyses that \
                   read it keep the periods they stored. Counts in the document-write budget. Unknown or someone \
                   else's: 404.",
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such set", body = ErrorBody),
        (status = 429, description = "Document-write budget exhausted", body = ErrorBody),
    ))]
pub async fn delete_statement_set(
    raw_id: String,
    state: Arc<AppState>,
    caller: Principal,
) -> Result<impl Reply, ApiError> {
    let id: StatementSetId = raw_id.parse().map_err(|_| ApiError::not_found("statement set not found"))?;
    state.statement_sets.delete(caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The media types a statement set may be uploaded as.
const ACCEPTED_SHEETS: [&str; 2] = ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv"];

/// A statement spreadsheet sent as `multipart/form-data`.
struct SheetForm {
    format: SheetFormat,
    bytes: Bytes,
    file_name: String,
    borrower_name: String,
    deal_id: Option<i64>,
    currency: Option<String>,
}

fn unsupported_sheet(message: String) -> ApiError {
    ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, message).with_detail(json!({ "accepted": ACCEPTED_SHEETS }))
}

/// The spreadsheet format of a `file` part: its Content-Type, else (none, or
/// `application/octet-stream`) its name's extension; then checked against the bytes (an XLSX is a
/// zip package, a CSV is not).
fn sheet_format(declared: Option<&str>, file_name: &str, bytes: &[u8]) -> Result<SheetFormat, ApiError> {
    let by_name = || match file_name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).as_deref() {
        Some("xlsx") => Some(SheetFormat::Xlsx),
        Some("csv") => Some(SheetFormat::Csv),
        _ => None,
    };
    let format = match declared {
        Some(declared) if declared != "application/octet-stream" => match declared {
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => SheetFormat::Xlsx,
            "text/csv" | "application/csv" | "text/plain" => SheetFormat::Csv,
            other => return Err(unsupported_sheet(format!("files of type {other} are not accepted as statements"))),
        },
        _ => by_name().ok_or_else(|| {
            unsupported_sheet(
                "the file part has no spreadsheet Content-Type (and its name is not .xlsx or .csv)".into(),
            )
        })?,
    };
    let zipped = bytes.starts_with(b"PK\x03\x04");
    match (format, zipped) {
        (SheetFormat::Xlsx, false) => {
            Err(unsupported_sheet("the file is declared XLSX but is not an XLSX package".into()))
        }
        (SheetFormat::Csv, true) => {
            Err(unsupported_sheet("the file is declared CSV but is a zip package (an XLSX workbook?)".into()))
        }
        _ => Ok(format),
    }
}

/// Parses the form: `file` (XLSX or CSV), `borrower_name`, optional `deal_id` and `currency`.
async fn parse_sheet_form(body: RawJson, upload_max_bytes: u64) -> Result<SheetForm, ApiError> {
    let mut form = open_form(body, upload_max_bytes)?;
    let (mut file, mut borrower_name, mut deal_id, mut currency) = (None, None, None, None);
    while let Some(field) = form.next_field().await.map_err(|e| form_error(e, upload_max_bytes))? {
        let name = field.name().unwrap_or_default().to_owned();
        let declared = field.content_type().map(|m| m.essence_str().to_owned());
        let file_name = field.file_name().map(str::to_owned);
        let bytes = field.bytes().await.map_err(|e| form_error(e, upload_max_bytes))?;
        let text = || String::from_utf8_lossy(&bytes).trim().to_owned();
        match name.as_str() {
            "file" => {
                let file_name = file_name.unwrap_or_else(|| "statements".to_owned());
                let format = sheet_format(declared.as_deref(), &file_name, &bytes)?;
                file = Some((format, file_name, bytes));
            }
            "borrower_name" => borrower_name = Some(text()),
            "currency" => currency = Some(text()),
            "deal_id" => deal_id = Some(deal_id_part(&text())?),
            other => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("unknown form part '{other}'; the parts are file, borrower_name, deal_id and currency"),
                ));
            }
        }
    }
    let (format, file_name, bytes) =
        file.ok_or_else(|| ApiError::invalid_field("file", "the form has no file part"))?;
    if bytes.is_empty() {
        return Err(ApiError::invalid_field("file", "the file is empty"));
    }
    let borrower_name =
        borrower_name.ok_or_else(|| ApiError::invalid_field("borrower_name", "the form has no borrower_name part"))?;
    refuse_unstorable("borrower_name", &borrower_name)?;
    refuse_unstorable("file", &file_name)?;
    Ok(SheetForm { format, bytes, file_name, borrower_name, deal_id, currency })
}

/// Reads the cells in a document reader (a worker process within the readers' time and memory
/// limits, in the caller's turn); an unreadable file is a 422, no free reader a 503.
async fn read_sheet(state: &AppState, caller: Principal, format: SheetFormat, bytes: Bytes) -> Result<Grid, ApiError> {
    match state.sheets.read_sheet(caller.user_id, format, bytes).await {
        Ok(grid) => Ok(grid),
        Err(ReadError::Busy) => Err(ApiError::service_unavailable(ReadError::Busy.to_string(), 5)),
        Err(ReadError::Failed(reason)) => {
            Err(ApiError::internal(anyhow::anyhow!("the spreadsheet reader failed: {reason}")))
        }
        Err(error) => {
            let reason = error.to_string();
            Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, format!("the spreadsheet cannot be read: {reason}"))
                .with_detail(json!({ "field": "file", "reason": reason })))
        }
    }
}
