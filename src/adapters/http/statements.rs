//! Supplied financial statements on the wire: `/api/financial-statements` (store a borrower's
//! statement set, read it back), and the `financials` object the analyses accept, with an OpenAPI
//! schema generated from the same item table the domain checks against ([`StatementItem`]), so the
//! documented fields, units and signs cannot drift from what is accepted.

use std::sync::Arc;

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
use super::uploads::body_limit;
use crate::domain::auth::Principal;
use crate::domain::statements::service::{SetSubject, StatementSetError};
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
        .and(authenticated(state))
        .then(get_statement_set);
    create.or(get.map(respond)).unify().boxed()
}

impl From<StatementSetError> for ApiError {
    fn from(error: StatementSetError) -> Self {
        match error {
            StatementSetError::Validation { field, message } => ApiError::invalid_field(&field, message),
            StatementSetError::NotFound => ApiError::not_found("statement set not found"),
            StatementSetError::Store(error) => ApiError::internal(error.into()),
        }
    }
}

/// POST /api/financial-statements
#[utoipa::path(post, path = "/api/financial-statements", tag = "financial-statements",
    request_body(content((CreateStatementSetRequest = "application/json"))),
    description = "Stores a borrower's financial statements (owned by the caller, optionally tied to a deal), checked \
                   as the analyses check `financials`: a set that does not balance, a negative revenue or debt, a \
                   missing required item, periods out of order or repeated are a 400 naming the period and field, \
                   and nothing is stored. Analyses then take `statement_set_id`; a loan application on the deal uses \
                   the deal's newest set when the borrower has no SEC filings. Answers `{statement_set_id, periods, \
                   recognised, unrecognised, …}` with amounts in units of the currency.",
    responses(
        (status = 201, description = "Stored", body = Object),
        (status = 400, description = "Statements that do not hold together, invalid field", body = ErrorBody),
    ))]
pub async fn create_statement_set(
    state: Arc<AppState>,
    caller: Principal,
    body: RawJson,
) -> Result<impl Reply, ApiError> {
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
