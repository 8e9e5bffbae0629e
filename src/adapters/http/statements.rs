//! Supplied financial statements on the wire: the `financials` object the analyses accept, with
//! an OpenAPI schema generated from the same item table the domain checks against
//! ([`StatementItem`]), so the documented fields, units and signs cannot drift from what is accepted.

use serde::Deserialize;
use serde_json::json;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, schema::AdditionalProperties};
use utoipa::{PartialSchema, ToSchema};

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
