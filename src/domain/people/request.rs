//! A people-workflow request, validated: the person's name, what tells namesakes apart (the
//! free-text context and the structured company, role and location), the deal, and the IPIP-50
//! answers the person gave; and the errors of the people use case.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::domain::people::identity::PersonIdentity;
use crate::domain::people::{score_ipip50, score_ipip50_items};
use crate::ports::store::StoreError;

/// Longest person name accepted, in characters.
pub const MAX_PERSON_NAME_CHARS: usize = 200;
/// Longest context accepted, in characters.
pub const MAX_CONTEXT_CHARS: usize = 300;

#[derive(Debug, thiserror::Error)]
pub enum PeopleError {
    /// A request value is wrong; `field` names it.
    #[error("{field}: {message}")]
    Validation { field: &'static str, message: String },
    /// No result with this id that the caller may see.
    #[error("people result not found")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub(super) fn invalid(field: &'static str, message: impl Into<String>) -> PeopleError {
    PeopleError::Validation { field, message: message.into() }
}

/// The 50 answers (1–5) of an IPIP-50 questionnaire, validated, in item order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpipAnswers([u8; 50]);

impl IpipAnswers {
    /// Reads either an array of exactly 50 integers 1–5 in item order or an object of item numbers
    /// to answers (`{"1": 4, …, "50": 2}`).
    ///
    /// # Errors
    /// A message naming the offending item (or the count) when the answers cannot be scored.
    pub fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Array(values) => Self::from_array(values),
            Value::Object(values) => Self::from_object(values),
            _ => Err("must be an array of 50 answers (1 to 5) in item order, or an object of item numbers to answers"
                .to_owned()),
        }
    }

    /// The answers, `answers()[0]` answering item 1.
    pub fn answers(&self) -> &[u8; 50] {
        &self.0
    }

    fn from_array(values: &[Value]) -> Result<Self, String> {
        let answers = values
            .iter()
            .enumerate()
            .map(|(i, value)| answer(u32::try_from(i + 1).unwrap_or(u32::MAX), value))
            .collect::<Result<Vec<u8>, String>>()?;
        let ordered: [u8; 50] = answers
            .try_into()
            .map_err(|answers: Vec<u8>| format!("the IPIP-50 needs exactly 50 answers, got {}", answers.len()))?;
        score_ipip50(&ordered).map_err(|error| error.to_string())?;
        Ok(Self(ordered))
    }

    fn from_object(values: &Map<String, Value>) -> Result<Self, String> {
        let mut by_item = BTreeMap::new();
        for (key, value) in values {
            let item = key
                .trim()
                .parse::<u32>()
                .map_err(|_| format!("key {key:?} is not an item number (items are numbered 1 to 50)"))?;
            by_item.insert(item, answer(item, value)?);
        }
        score_ipip50_items(&by_item).map_err(|error| error.to_string())?;
        let mut ordered = [0u8; 50];
        for (item, value) in by_item {
            // Scoring succeeded, so every item is 1–50.
            if let Some(slot) = usize::try_from(item).ok().and_then(|item| ordered.get_mut(item - 1)) {
                *slot = value;
            }
        }
        Ok(Self(ordered))
    }
}

/// One answer, named by its item in the error.
fn answer(item: u32, value: &Value) -> Result<u8, String> {
    let number = value.as_i64().ok_or_else(|| format!("item {item}: answer must be an integer from 1 to 5"))?;
    u8::try_from(number)
        .ok()
        .filter(|answer| (1..=5).contains(answer))
        .ok_or_else(|| format!("item {item}: answer {number} is outside 1 to 5"))
}

/// A validated people-workflow request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeopleRequest {
    pub person_name: String,
    pub context: Option<String>,
    /// The company, role and location given as fields (not those read from the context).
    pub identity: PersonIdentity,
    pub deal_id: Option<i64>,
    pub session_id: Option<String>,
    pub ipip_responses: Option<IpipAnswers>,
}

impl PeopleRequest {
    /// # Errors
    /// [`PeopleError::Validation`] naming the field: `person_name` blank or longer than
    /// [`MAX_PERSON_NAME_CHARS`]; `context` longer than [`MAX_CONTEXT_CHARS`]; `deal_id` not
    /// positive; `ipip_responses` not 50 answers 1–5 (see [`IpipAnswers::from_json`]; the message
    /// names the item). A blank context and a JSON `null` for the answers count as absent.
    pub fn new(
        person_name: &str,
        context: Option<&str>,
        deal_id: Option<i64>,
        ipip_responses: Option<&Value>,
    ) -> Result<Self, PeopleError> {
        let person_name = person_name.split_whitespace().collect::<Vec<_>>().join(" ");
        if person_name.is_empty() {
            return Err(invalid("person_name", "must not be blank"));
        }
        if person_name.chars().count() > MAX_PERSON_NAME_CHARS {
            return Err(invalid("person_name", format!("must be at most {MAX_PERSON_NAME_CHARS} characters")));
        }
        let context = context.map(str::trim).filter(|context| !context.is_empty());
        if context.is_some_and(|context| context.chars().count() > MAX_CONTEXT_CHARS) {
            return Err(invalid("context", format!("must be at most {MAX_CONTEXT_CHARS} characters")));
        }
        if deal_id.is_some_and(|id| id <= 0) {
            return Err(invalid("deal_id", "must be a positive integer"));
        }
        let ipip_responses = match ipip_responses.filter(|value| !value.is_null()) {
            Some(value) => Some(IpipAnswers::from_json(value).map_err(|message| invalid("ipip_responses", message))?),
            None => None,
        };
        Ok(Self {
            person_name,
            context: context.map(str::to_owned),
            identity: PersonIdentity::default(),
            deal_id,
            session_id: None,
            ipip_responses,
        })
    }

    /// The same request with the person's `company`, `role` and `location` (each optional).
    ///
    /// # Errors
    /// [`PeopleError::Validation`] naming the field (see [`PersonIdentity::new`]).
    pub fn with_identity(
        mut self,
        company: Option<&str>,
        role: Option<&str>,
        location: Option<&str>,
    ) -> Result<Self, PeopleError> {
        self.identity =
            PersonIdentity::new(company, role, location).map_err(|error| invalid(error.field, error.message))?;
        Ok(self)
    }

    /// Who to match the sources against: the fields given, else what the context says.
    pub fn identity_to_match(&self) -> PersonIdentity {
        let from_context = self.context.as_deref().map(PersonIdentity::from_context).unwrap_or_default();
        self.identity.clone().or(from_context)
    }

    /// The same request, launched from chatbot session `session_id` (blank: none).
    #[must_use]
    pub fn with_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id.map(|id| id.trim().to_owned()).filter(|id| !id.is_empty());
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_are_validated_field_by_field() {
        let ok = PeopleRequest::new("  Jane   Doe ", Some("  "), Some(3), Some(&Value::Null)).expect("valid");
        assert_eq!(
            (ok.person_name.as_str(), ok.context, ok.deal_id, ok.ipip_responses),
            ("Jane Doe", None, Some(3), None)
        );
        let long_name = "x".repeat(MAX_PERSON_NAME_CHARS + 1);
        let long_context = "y".repeat(MAX_CONTEXT_CHARS + 1);
        let mut missing_33: Map<String, Value> = (1..=50).map(|item: u32| (item.to_string(), json!(3))).collect();
        missing_33.remove("33");
        let mut item_17 = vec![json!(3); 50];
        item_17[16] = json!(6);
        // name, context, deal_id, ipip_responses, the field named, words of the message
        type Case<'a> = (&'a str, Option<&'a str>, Option<i64>, Option<Value>, &'a str, &'a str);
        let cases: Vec<Case> = vec![
            (" ", None, None, None, "person_name", "blank"),
            (&long_name, None, None, None, "person_name", "200"),
            ("Jane Doe", Some(&long_context), None, None, "context", "300"),
            ("Jane Doe", None, Some(0), None, "deal_id", "positive"),
            ("Jane Doe", None, Some(-4), None, "deal_id", "positive"),
            ("Jane Doe", None, None, Some(json!(vec![3; 49])), "ipip_responses", "exactly 50 answers, got 49"),
            ("Jane Doe", None, None, Some(Value::Array(item_17)), "ipip_responses", "item 17: answer 6"),
            ("Jane Doe", None, None, Some(Value::Object(missing_33)), "ipip_responses", "item 33 is unanswered"),
            ("Jane Doe", None, None, Some(json!({"1": 3, "abc": 3})), "ipip_responses", "\"abc\""),
            ("Jane Doe", None, None, Some(json!({"51": 3})), "ipip_responses", "item 51"),
            ("Jane Doe", None, None, Some(json!(["4"])), "ipip_responses", "item 1: answer must be an integer"),
            ("Jane Doe", None, None, Some(json!("4,4,4")), "ipip_responses", "must be an array"),
        ];
        for (name, context, deal_id, ipip, field, words) in cases {
            match PeopleRequest::new(name, context, deal_id, ipip.as_ref()) {
                Err(PeopleError::Validation { field: got, message }) => {
                    assert_eq!(got, field, "{message}");
                    assert!(message.contains(words), "{field}: {message}");
                }
                other => panic!("{field} {ipip:?}: {other:?}"),
            }
        }
    }
}
