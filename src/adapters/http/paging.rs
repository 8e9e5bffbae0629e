//! The query string of the paged result lists (`?deal_id=&page=&limit=`) and the page they answer,
//! shared by every `GET …/results` route.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::error::ApiError;

/// RFC 3339 timestamps in response bodies.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap_or_default()
}

/// `deal_id`, `page` (default 1) and `limit` (default 50) of a list request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingParams {
    pub deal_id: Option<i64>,
    pub page: u32,
    pub limit: u32,
}

impl ListingParams {
    /// Reads the raw query string; the use case checks the ranges.
    ///
    /// # Errors
    /// A 400 naming the parameter that is not a whole number or not one of the three.
    pub fn parse(query: &str) -> Result<Self, ApiError> {
        Self::parse_accepting(query, true)
    }

    /// The same for a list whose items belong to no deal: `page` and `limit` only.
    ///
    /// # Errors
    /// A 400 naming the parameter that is not a whole number or not one of the two.
    pub fn parse_pages(query: &str) -> Result<Self, ApiError> {
        Self::parse_accepting(query, false)
    }

    fn parse_accepting(query: &str, deal_id: bool) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(query).map_err(|e| ApiError::invalid_field("query", e.to_string()))?;
        let mut params = Self { deal_id: None, page: 1, limit: 50 };
        for (name, value) in pairs {
            let invalid = |field: &str| ApiError::invalid_field(field, format!("'{value}' is not a whole number"));
            match name.as_str() {
                "deal_id" if deal_id => params.deal_id = Some(value.parse::<i64>().map_err(|_| invalid("deal_id"))?),
                "page" => params.page = value.parse().map_err(|_| invalid("page"))?,
                "limit" => params.limit = value.parse().map_err(|_| invalid("limit"))?,
                other => {
                    let expected = if deal_id { "deal_id, page or limit" } else { "page or limit" };
                    return Err(ApiError::invalid_field(other, format!("unknown parameter: expected {expected}")));
                }
            }
        }
        Ok(params)
    }

    /// `{status, <items_name>: items, page, limit, total, total_pages}`.
    pub fn page_body(&self, items_name: &str, items: Vec<Value>, total: u64) -> Value {
        let mut body = json!({
            "status": "success",
            "page": self.page,
            "limit": self.limit,
            "total": total,
            "total_pages": total.div_ceil(u64::from(self.limit.max(1))),
        });
        if let Some(object) = body.as_object_mut() {
            object.insert(items_name.to_owned(), Value::Array(items));
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_params_default_and_name_the_bad_parameter() {
        assert_eq!(ListingParams::parse("").expect("empty"), ListingParams { deal_id: None, page: 1, limit: 50 });
        assert_eq!(
            ListingParams::parse("deal_id=7&page=2&limit=10").expect("all"),
            ListingParams { deal_id: Some(7), page: 2, limit: 10 }
        );
        assert!(ListingParams::parse("page=two").expect_err("not a number").message().contains("not a whole number"));
        assert!(ListingParams::parse("sort=asc").is_err());
    }

    #[test]
    fn a_page_body_counts_pages() {
        let body = ListingParams { deal_id: None, page: 1, limit: 2 }.page_body("runs", vec![json!(1)], 5);
        assert_eq!((body["total_pages"].clone(), body["runs"].clone()), (json!(3), json!([1])));
    }
}
