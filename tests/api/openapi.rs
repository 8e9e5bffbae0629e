//! The OpenAPI document is true: every documented operation exists, and every protected one
//! answers 401 without a token.

use serde_json::Value;

use crate::helpers::*;

const PUBLIC_API_ROUTES: &[&str] =
    &["/api/auth/login", "/api/auth/refresh", "/api/auth/wallet", "/api/auth/wallet/nonce"];

#[tokio::test]
async fn the_document_is_openapi_3_1_with_a_bearer_scheme() {
    let app = spawn_app().await;
    let document: Value = app.get("/openapi.json", None).await.json().await.expect("json");
    assert!(document["openapi"].as_str().expect("version").starts_with("3.1"));
    assert_eq!(document["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    assert!(document["components"]["schemas"]["ErrorBody"].is_object());
    // The supplied statements are documented from the item table the service checks against.
    let financials = &document["components"]["schemas"]["Financials"];
    let period = &financials["properties"]["periods"]["items"];
    assert_eq!(period["additionalProperties"], false, "{financials}");
    assert_eq!(period["properties"]["total_debt"]["minimum"], 0, "{period}");
    assert!(period["properties"]["net_income"].get("minimum").is_none(), "a loss is a statement: {period}");
    assert_eq!(period["required"].as_array().map(Vec::len), Some(13), "period_end, months and 11 items: {period}");
    let company = &document["components"]["schemas"]["CompanyAnalysisRequest"]["properties"]["financials"];
    assert!(company.to_string().contains("Financials"), "{company}");
}

#[tokio::test]
async fn every_documented_operation_exists_and_protected_ones_answer_401_without_a_token() {
    let app = spawn_app().await;
    let document: Value = app.get("/openapi.json", None).await.json().await.expect("json");
    let paths = document["paths"].as_object().expect("paths");
    assert!(paths.len() >= 9, "expected the documented routes, got {}", paths.len());
    for (template, item) in paths {
        // Path parameters get a syntactically valid stand-in.
        let path = template
            .split('/')
            .map(|segment| if segment.starts_with('{') { "00000000-0000-0000-0000-000000000000" } else { segment })
            .collect::<Vec<_>>()
            .join("/");
        for (method, operation) in item.as_object().expect("item") {
            let Ok(method) = method.to_uppercase().parse::<reqwest::Method>() else {
                continue;
            };
            if !["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str()) {
                continue;
            }
            let body = (method != reqwest::Method::GET).then(|| serde_json::json!({}));
            let response = app.request(method.clone(), &path, None, body.as_ref()).await;
            let status = response.status().as_u16();
            assert!(status != 404 && status != 405, "{method} {template} is documented but answers {status}");
            let protected = path.starts_with("/api/") && !PUBLIC_API_ROUTES.contains(&path.as_str());
            if protected {
                assert_eq!(status, 401, "{method} {template} must need a token");
                assert!(operation["security"].is_array(), "{method} {template} must document its security");
                assert!(operation["responses"]["401"].is_object(), "{method} {template} must document 401");
            } else {
                assert!(operation.get("security").is_none(), "{method} {template} is public");
            }
            assert!(operation["responses"]["500"].is_object(), "{method} {template} must document 500");
        }
    }
}

/// Where the project's work items are numbered, their numbers say nothing to a user: the README,
/// the OpenAPI document and the console describe the product as it is.
#[tokio::test]
async fn user_facing_text_names_no_work_item_numbers() {
    let app = spawn_app().await;
    let document = app.get("/openapi.json", None).await.text().await.expect("text");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = vec![("openapi.json".to_owned(), document)];
    texts.push(("README.md".into(), std::fs::read_to_string(root.join("README.md")).expect("README")));
    let mut folders = vec![root.join("src/adapters/http/console/assets")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("console assets") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push((path.display().to_string(), text));
            }
        }
    }
    let numbered =
        regex::Regex::new(r"(?i)\b(issues?|tickets?) #?\d+|\bnext issues?\b|\bin progress\)").expect("regex");
    let found: Vec<String> = texts
        .iter()
        .flat_map(|(name, text)| numbered.find_iter(text).map(move |m| format!("{name}: {:?}", m.as_str())))
        .collect();
    assert!(found.is_empty(), "work-item numbers in user-facing text: {found:#?}");
}
