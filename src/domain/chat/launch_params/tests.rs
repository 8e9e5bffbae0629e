//! The tools' schemas and the launch validation are one contract: every call valid under a tool's
//! schema is accepted with its values (generated from the schema with proptest), every call the
//! schema forbids is refused naming the field, and the launch endpoint and the chat grammar reach
//! the same validation.

use proptest::prelude::*;

use super::schema_strategy::valid_values;
use super::*;
use crate::domain::chat::parse_intent;

/// The text a schema-valid string becomes: trimmed of white space and byte-order marks.
fn trimmed(value: &Value) -> Option<String> {
    value.as_str().map(|text| text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}').to_owned())
}

/// Whether the parsed launch carries the call's values (and the defaults for those left out).
fn carries(kind: LaunchKind, call: &Value, parsed: &WorkflowParams) -> bool {
    let text = |name: &str| call.get(name).and_then(trimmed);
    let choice = |name: &str| call.get(name).and_then(Value::as_str).map(str::to_owned);
    match (kind, parsed) {
        (LaunchKind::CompanyAnalysis, WorkflowParams::Quant(QuantParams::Company(request))) => {
            Some(request.company_name.clone()) == text("company_name")
                && request.ticker == text("ticker")
                && request.analysis_type.as_str() == choice("focus").as_deref().unwrap_or("comprehensive")
        }
        (LaunchKind::MarketAnalysis, WorkflowParams::Quant(QuantParams::Market(request))) => {
            Some(request.query.clone()) == text("query")
                && request.time_range.as_str() == choice("time_range").as_deref().unwrap_or("3M")
        }
        (LaunchKind::LoanApplication, WorkflowParams::Quant(QuantParams::LoanApplication(application))) => {
            Some(application.borrower_name.clone()) == text("borrower_name")
                && Some(application.loan_amount) == call["loan_amount"].as_f64()
                && application.loan_type.as_str() == choice("loan_type").as_deref().unwrap_or("term_loan")
        }
        (LaunchKind::Research, WorkflowParams::Research(request)) => {
            Some(request.query.clone()) == text("query")
                && call["max_iterations"].as_f64().is_none_or(|n| f64::from(request.max_iterations) == n)
        }
        (LaunchKind::People, WorkflowParams::People(request)) => {
            let name = text("person_name").map(|name| name.split_whitespace().collect::<Vec<_>>().join(" "));
            // Identity fields are compared with their inner white space collapsed, as they are stored.
            let words = |text: Option<String>| text.map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "));
            let identity = &request.identity;
            Some(request.person_name.clone()) == name
                && request.context == text("context")
                && words(identity.company().map(str::to_owned)) == words(text("company"))
                && words(identity.role().map(str::to_owned)) == words(text("role"))
                && words(identity.location().map(str::to_owned)) == words(text("location"))
        }
        _ => false,
    }
}

fn any_kind() -> impl Strategy<Value = LaunchKind> {
    proptest::sample::select(LaunchKind::ALL.to_vec())
}

fn kind_and_valid_call() -> impl Strategy<Value = (LaunchKind, Value)> {
    any_kind().prop_flat_map(|kind| valid_values(&kind.tool_schema()).prop_map(move |call| (kind, call)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn every_schema_valid_call_is_accepted_with_its_values((kind, call) in kind_and_valid_call()) {
        match kind.parse(&call, None) {
            Ok(parsed) => prop_assert!(carries(kind, &call, &parsed), "{} {call}: {parsed:?}", kind.tool_name()),
            Err(error) => prop_assert!(false, "{} refused the schema-valid {call}: {error}", kind.tool_name()),
        }
    }

    #[test]
    fn every_call_the_schema_forbids_is_refused_naming_the_field(
        (kind, call) in kind_and_valid_call(),
        mutation in 0..5_usize,
        pick in any::<prop::sample::Index>(),
    ) {
        let schema = kind.tool_schema();
        let properties = schema["properties"].as_object().expect("properties");
        let names: Vec<&String> = properties.keys().collect();
        let name = names[pick.index(names.len())].clone();
        let property = &properties[&name];
        let required = schema["required"].as_array().expect("required").contains(&json!(name));
        let mut forbidden = call.as_object().cloned().expect("an object");
        let field = match mutation {
            0 => { forbidden.insert("unexpected".into(), json!("x")); "unexpected".to_owned() }
            1 if required => { forbidden.remove(&name); name.clone() }
            2 => { forbidden.insert(name.clone(), json!([1])); name.clone() }
            3 => match out_of_bounds(property) {
                Some(value) => { forbidden.insert(name.clone(), value); name.clone() }
                None => return Ok(()),
            },
            4 if required => { forbidden.insert(name.clone(), Value::Null); name.clone() }
            _ => return Ok(()),
        };
        let forbidden = Value::Object(forbidden);
        match kind.parse(&forbidden, None) {
            Err(LaunchError::Validation { field: got, message }) => {
                prop_assert_eq!(got, format!("workflow_params.{field}"), "{}: {}", forbidden, message);
            }
            other => prop_assert!(false, "{} accepted the forbidden {forbidden}: {other:?}", kind.tool_name()),
        }
    }
}

/// A value just outside what `property` allows, if it has a bound or a closed set of values.
fn out_of_bounds(property: &Value) -> Option<Value> {
    if let Some(max) = property.get("maxLength").and_then(Value::as_u64) {
        return Some(json!("x".repeat(usize::try_from(max).ok()? + 1)));
    }
    if let Some(max) = property.get("maximum").and_then(Value::as_f64) {
        return Some(json!(if property["type"].to_string().contains("integer") { max + 1.0 } else { max * 1.5 }));
    }
    if property.get("enum").is_some() || property.get("oneOf").is_some() {
        return Some(json!("none_of_these"));
    }
    None
}

#[test]
fn tool_schemas_are_closed_objects_with_their_required_fields() {
    let expected: [(LaunchKind, &[&str]); 5] = [
        (LaunchKind::CompanyAnalysis, &["company_name"]),
        (LaunchKind::MarketAnalysis, &["query"]),
        (LaunchKind::LoanApplication, &["borrower_name", "loan_amount"]),
        (LaunchKind::Research, &["query"]),
        (LaunchKind::People, &["person_name"]),
    ];
    for (kind, required) in expected {
        let schema = kind.tool_schema();
        assert_eq!(schema["type"], "object", "{}", kind.tool_name());
        assert_eq!(schema["additionalProperties"], false, "{}", kind.tool_name());
        assert_eq!(schema["required"], json!(required), "{}", kind.tool_name());
        assert!(!schema.to_string().contains("$ref"), "{} is inline", kind.tool_name());
        assert_eq!(LaunchKind::from_tool_name(kind.tool_name()), Some(kind));
    }
    let loan = LaunchKind::LoanApplication.tool_schema();
    assert_eq!(loan["properties"]["loan_amount"]["exclusiveMinimum"], 0);
    assert_eq!(loan["properties"]["loan_amount"]["maximum"], 1e12);
    assert_eq!(LaunchKind::Research.tool_schema()["properties"]["max_iterations"]["maximum"], 20);
}

#[test]
fn a_blank_text_is_refused_whatever_its_white_space() {
    for blank in ["", "   ", "\t\n", "\u{85}", "\u{feff}", "\u{3000}\u{a0}"] {
        let refused = LaunchKind::Research.parse(&json!({ "query": blank }), None);
        assert!(
            matches!(&refused, Err(LaunchError::Validation { field, .. }) if field == "workflow_params.query"),
            "{blank:?}: {refused:?}"
        );
    }
}

fn field_of(workflow_type: &str, params: Value) -> String {
    match parse_workflow_params(workflow_type, &params, None) {
        Err(LaunchError::Validation { field, .. }) => field,
        other => panic!("{workflow_type} {params}: expected a validation error, got {other:?}"),
    }
}

#[test]
fn every_workflow_type_names_its_missing_or_wrong_parameters() {
    let cases = [
        ("people", json!({}), "workflow_params.person_name"),
        ("people", json!({ "person_name": "  " }), "workflow_params.person_name"),
        ("people", json!({ "person_name": 7 }), "workflow_params.person_name"),
        ("people", json!({ "person_name": "Jane Doe", "ipip_responses": [1, 2] }), "workflow_params.ipip_responses"),
        ("people", json!({ "person_name": "Jane Doe", "age": 40 }), "workflow_params.age"),
        ("people", json!({ "person_name": "Jane Doe", "company": "Acme\nCorp" }), "workflow_params.company"),
        ("people", json!({ "person_name": "Jane Doe", "location": "x".repeat(121) }), "workflow_params.location"),
        ("research", json!({}), "workflow_params.query"),
        ("research", json!({ "query": "SOFR", "max_iterations": 50 }), "workflow_params.max_iterations"),
        ("research", json!({ "query": "SOFR", "max_iterations": "5" }), "workflow_params.max_iterations"),
        ("research", json!({ "query": "SOFR", "max_iterations": 2.5 }), "workflow_params.max_iterations"),
        ("quant", json!({}), "workflow_params.analysis_type"),
        ("quant", json!({ "analysis_type": "portfolio" }), "workflow_params.analysis_type"),
        ("quant", json!({ "analysis_type": "company" }), "workflow_params.company_name"),
        (
            "quant",
            json!({ "analysis_type": "company", "company_name": "Apple", "focus": "vibes" }),
            "workflow_params.focus",
        ),
        (
            "quant",
            json!({ "analysis_type": "company", "company_name": "Apple", "query": "x" }),
            "workflow_params.query",
        ),
        ("quant", json!({ "analysis_type": "market" }), "workflow_params.query"),
        (
            "quant",
            json!({ "analysis_type": "market", "query": "banks", "time_range": "2W" }),
            "workflow_params.time_range",
        ),
        (
            "quant",
            json!({ "analysis_type": "loan_application", "borrower_name": "Acme" }),
            "workflow_params.loan_amount",
        ),
        (
            "quant",
            json!({ "analysis_type": "loan_application", "borrower_name": "Acme", "loan_amount": "5m" }),
            "workflow_params.loan_amount",
        ),
        (
            "quant",
            json!({ "analysis_type": "loan_application", "borrower_name": "Acme", "loan_amount": 5e6, "currency": "EUR" }),
            "workflow_params.currency",
        ),
        ("payroll", json!({}), "workflow_type"),
    ];
    for (workflow_type, params, field) in cases {
        assert_eq!(field_of(workflow_type, params.clone()), field, "{workflow_type} {params}");
    }
    assert!(matches!(
        parse_workflow_params("research", &json!("SOFR"), None),
        Err(LaunchError::Validation { field, .. }) if field == "workflow_params"
    ));
    assert!(matches!(
        parse_workflow_params("research", &json!({ "query": "SOFR" }), Some(0)),
        Err(LaunchError::Validation { field, .. }) if field == "deal_id"
    ));
}

#[test]
fn refusals_say_what_is_wrong_in_words() {
    let message = |workflow_type: &str, params: Value| match parse_workflow_params(workflow_type, &params, None) {
        Err(LaunchError::Validation { message, .. }) => message,
        other => panic!("{other:?}"),
    };
    assert_eq!(message("people", json!({})), "is required");
    assert_eq!(
        message("quant", json!({ "analysis_type": "company", "company_name": "Apple", "query": "x" })),
        "is not a parameter here; expected one of company_name, ticker, focus"
    );
    assert_eq!(message("research", json!({ "query": "SOFR", "max_iterations": 50 })), "must be between 1 and 20");
    assert!(
        message("quant", json!({ "analysis_type": "loan_application", "borrower_name": "Acme", "loan_amount": 5e6, "currency": "EUR" }))
            .contains("convert the EUR amount to USD")
    );
    assert!(
        message("quant", json!({ "analysis_type": "market", "query": "banks", "time_range": "2W" })).contains("1Y")
    );
}

#[test]
fn valid_parameters_become_the_dedicated_endpoints_requests() {
    let company = parse_workflow_params(
        "quant",
        &json!({ "analysis_type": "company", "company_name": " Apple Inc ", "ticker": "AAPL", "focus": "risk" }),
        Some(7),
    );
    let Ok(WorkflowParams::Quant(QuantParams::Company(request))) = company else { panic!("{company:?}") };
    assert_eq!((request.company_name.as_str(), request.ticker.as_deref()), ("Apple Inc", Some("AAPL")));
    assert_eq!((request.analysis_type, request.deal_id), (CompanyAnalysisType::Risk, Some(7)));

    let market = parse_workflow_params("quant", &json!({ "analysis_type": "market", "query": "banks" }), None);
    let Ok(WorkflowParams::Quant(QuantParams::Market(request))) = market else { panic!("{market:?}") };
    assert_eq!((request.query.as_str(), request.time_range), ("banks", TimeRange::ThreeMonths));

    let loan = parse_workflow_params(
        "quant",
        &json!({ "analysis_type": "loan_application", "borrower_name": "Acme Corp", "loan_amount": 5_000_000,
                 "loan_type": "revolving", "currency": "usd" }),
        None,
    );
    let Ok(WorkflowParams::Quant(QuantParams::LoanApplication(application))) = loan else { panic!("{loan:?}") };
    assert_eq!((application.loan_amount, application.loan_type), (5_000_000.0, LoanType::Revolving));

    let research = parse_workflow_params("research", &json!({ "query": "SOFR", "max_iterations": 3.0 }), None);
    let Ok(WorkflowParams::Research(request)) = research else { panic!("{research:?}") };
    assert_eq!(request.max_iterations, 3);

    let answers: Vec<u8> = (0..50).map(|i| 1 + (i % 5)).collect();
    let people = parse_workflow_params(
        "people",
        &json!({ "person_name": "Jane Doe", "context": null, "ipip_responses": answers }),
        None,
    );
    let Ok(WorkflowParams::People(request)) = people else { panic!("{people:?}") };
    assert_eq!((request.person_name.as_str(), request.context.as_deref()), ("Jane Doe", None));
    assert!(request.ipip_responses.is_some());
    // A model is not offered the questionnaire: the tool refuses answers it would have to invent.
    let invented = LaunchKind::People.parse(&json!({ "person_name": "Jane Doe", "ipip_responses": vec![3; 50] }), None);
    assert!(
        matches!(invented, Err(LaunchError::Validation { field, .. }) if field == "workflow_params.ipip_responses")
    );
}

#[test]
fn the_chat_grammars_intents_pass_the_launch_validation() {
    for (message, kind) in [
        ("analyse Apple Inc", LaunchKind::CompanyAnalysis),
        ("compare semiconductors and banks over 1Y", LaunchKind::MarketAnalysis),
        ("assess a $5m term loan for Acme Corp", LaunchKind::LoanApplication),
        ("research the impact of SOFR on leveraged loans", LaunchKind::Research),
        ("look into Jane Doe", LaunchKind::People),
    ] {
        let (launched, arguments) = intent_launch(&parse_intent(message, &[])).expect("a launch");
        assert_eq!(launched, kind, "{message}");
        kind.parse(&arguments, None).expect(message);
        let endpoint = as_workflow_params(kind, &arguments);
        parse_workflow_params(kind.workflow_type(), &endpoint, None).expect(message);
    }
    let euro = intent_launch(&parse_intent("assess a EUR 750k term loan for Acme Corp", &[]));
    let (kind, arguments) = euro.expect("a launch");
    assert!(
        matches!(kind.parse(&arguments, None), Err(LaunchError::Validation { field, .. }) if field == "workflow_params.currency"),
        "EUR is refused, not analysed as USD"
    );
    assert!(intent_launch(&parse_intent("thanks!", &[])).is_none());
}
