//! `GET /openapi.json`: the OpenAPI 3.1 document, generated from the handlers' annotations and the
//! request/response types. The standard error responses and the security requirement of each
//! operation are derived from the same access table that enforces them, so the document cannot
//! drift from the behaviour.

use std::collections::HashMap;
use std::sync::LazyLock;

use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::header::CONTENT_TYPE;
use warp::reply::{Reply, Response};

use super::error::ErrorBody;
use super::{admin, auth, chatbot, deals, documents, health, people, quant, research, statements};
use crate::domain::auth::{Access, Operation as AccessOperation, Role, required_access};
use crate::domain::ratelimit::is_workflow_request;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "creditflow",
        version = "1.0.0",
        description = "Credit-finance agent workflows. Every /api route except the sign-in routes needs \
                       `Authorization: Bearer <access token>`. Every error is \
                       `{\"status\":\"error\",\"message\":…,\"detail\":…}`."
    ),
    paths(
        health::live,
        health::ready,
        health::database_ssl,
        auth::login,
        auth::refresh,
        auth::logout,
        auth::wallet_nonce,
        auth::wallet_login,
        auth::me,
        admin::create_user,
        admin::list_users,
        admin::update_user,
        admin::list_deletions,
        documents::extract,
        documents::create_document,
        documents::import_document,
        documents::download_original,
        documents::list_documents,
        documents::get_document,
        documents::add_version,
        documents::review_document,
        documents::delete_document,
        quant::company,
        quant::market,
        quant::loan_application,
        quant::get_result,
        quant::list_results,
        research::submit,
        research::get_result,
        research::follow,
        research::list_results,
        chatbot::chat,
        chatbot::launch_workflow,
        chatbot::start_session,
        chatbot::list_sessions,
        chatbot::get_session,
        people::run,
        people::get_result,
        people::list_results,
        statements::create_statement_set,
        statements::get_statement_set,
        deals::get_deal,
        deals::run_covenant_test,
        deals::list_covenant_tests,
        deals::get_covenant_test,
        statements::delete_statement_set,
    ),
    components(schemas(ErrorBody)),
    modifiers(&DerivedFromAccessTable),
    tags(
        (name = "auth", description = "Sign-in (password, Ethereum wallet), token rotation, sign-out"),
        (name = "admin", description = "User administration (admin role)"),
        (name = "quantitative-analysis", description = "Company analysis from SEC filings and prices; stored results"),
        (name = "research", description = "Iterative research over web search providers and your stored documents: queued runs, results with cited sources"),
        (name = "chatbot", description = "Chat turns that answer, launch workflows and read the agreement in context; direct workflow launches; stored sessions, listed and read"),
        (name = "people", description = "People workflow: a person identified by name plus company, role and location (namesakes' evidence set aside, an ambiguous name asked about); cited research summary, psychometric profile (IPIP-50 or none), character assessment for human review"),
        (name = "documents", description = "Credit agreement extraction (CDM), documents, versions, review workflow"),
        (name = "deals", description = "Deals: covenant tests of a deal's agreement against the borrower's statements, with the agreement's own definitions and step-downs; stored and listed"),
        (name = "health", description = "Probes (no token)"),
    )
)]
pub struct ApiDoc;

/// The document, serialised once.
static DOCUMENT: LazyLock<String> =
    LazyLock::new(|| ApiDoc::openapi().to_pretty_json().unwrap_or_else(|_| "{}".to_owned()));

/// Each documented path template with its methods, for the `Allow` header of 405 answers.
static ALLOWED_METHODS: LazyLock<Vec<(String, String)>> = LazyLock::new(|| {
    ApiDoc::openapi()
        .paths
        .paths
        .iter()
        .map(|(template, item)| {
            let methods = [
                ("GET", item.get.is_some()),
                ("POST", item.post.is_some()),
                ("PUT", item.put.is_some()),
                ("PATCH", item.patch.is_some()),
                ("DELETE", item.delete.is_some()),
            ];
            let allowed: Vec<_> = methods.iter().filter(|(_, present)| *present).map(|(name, _)| *name).collect();
            (template.clone(), allowed.join(", "))
        })
        .collect()
});

/// The documented paths by kind: literal ones by their text, templated ones in document order.
struct RouteTable {
    literal: HashMap<&'static str, usize>,
    templated: Vec<usize>,
}

/// Every request looks its route up here (metrics), so literal paths cost one hash lookup.
static ROUTES: LazyLock<RouteTable> = LazyLock::new(|| {
    let mut table = RouteTable { literal: HashMap::new(), templated: Vec::new() };
    for (index, (template, _)) in ALLOWED_METHODS.iter().enumerate() {
        if template.contains('{') {
            table.templated.push(index);
        } else {
            table.literal.insert(template.as_str(), index);
        }
    }
    table
});

fn documented(path: &str) -> Option<&'static (String, String)> {
    let routes = &*ROUTES;
    let index = routes.literal.get(path).copied().or_else(|| {
        routes.templated.iter().copied().find(|&index| template_matches(&ALLOWED_METHODS[index].0, path))
    })?;
    Some(&ALLOWED_METHODS[index])
}

/// The methods the API documents for `path` (templates like `/x/{id}` match any one segment).
pub fn allowed_methods(path: &str) -> Option<&'static str> {
    documented(path).map(|(_, methods)| methods.as_str())
}

/// The documented template `path` falls under (`/api/documents/{id}`); a literal path is its own.
pub fn route_template(path: &str) -> Option<&'static str> {
    documented(path).map(|(template, _)| template.as_str())
}

fn template_matches(template: &str, path: &str) -> bool {
    let mut template_segments = template.split('/');
    let mut path_segments = path.split('/');
    loop {
        match (template_segments.next(), path_segments.next()) {
            (None, None) => return true,
            (Some(t), Some(p)) if t == p || (t.starts_with('{') && !p.is_empty()) => {}
            _ => return false,
        }
    }
}

pub fn routes() -> BoxedFilter<(Response,)> {
    warp::path!("openapi.json")
        .and(warp::get())
        .map(|| warp::reply::with_header(DOCUMENT.as_str(), CONTENT_TYPE, "application/json").into_response())
        .boxed()
}

/// Adds the bearer security scheme, and to each operation its security requirement and the error
/// responses that the shared filters can produce for it.
struct DerivedFromAccessTable;

impl Modify for DerivedFromAccessTable {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
            );
        }
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                (AccessOperation::Read, "GET", &mut item.get),
                (AccessOperation::Write, "POST", &mut item.post),
                (AccessOperation::Write, "PUT", &mut item.put),
                (AccessOperation::Write, "PATCH", &mut item.patch),
                (AccessOperation::Write, "DELETE", &mut item.delete),
            ];
            for (kind, method, operation) in operations {
                if let Some(operation) = operation.as_mut() {
                    document_shared_responses(operation, kind, method, path);
                }
            }
        }
    }
}

fn document_shared_responses(operation: &mut Operation, kind: AccessOperation, method: &str, path: &str) {
    if operation.request_body.is_some() {
        add_error(
            operation,
            "400",
            "Invalid request: the body is not valid JSON or a field is missing, of the wrong type or invalid (`detail.field` names it)",
        );
        add_error(operation, "413", "Request body too large");
        add_error(operation, "415", "Content-Type is not application/json");
    }
    if let Access::AtLeast(role) = required_access(kind, path) {
        operation.security = Some(vec![SecurityRequirement::new("bearer", Vec::<String>::new())]);
        add_error(operation, "401", "Missing, malformed, expired or invalid access token");
        if role > Role::Viewer {
            add_error(operation, "403", &format!("The token is valid but the role is below {role}"));
        }
    }
    if is_workflow_request(method, path) {
        add_error(operation, "429", "Per-user rate limit exceeded (Retry-After and X-RateLimit-* headers)");
    }
    add_error(operation, "500", "Internal error (details are logged with the request id, never returned)");
    if !path.starts_with("/health/") && path != "/openapi.json" {
        add_error(
            operation,
            "503",
            "The database is not answering (Retry-After); no record is half-written. Answered within 3 s",
        );
    }
}

fn add_error(operation: &mut Operation, status: &str, description: &str) {
    let response = ResponseBuilder::new()
        .description(description)
        .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build())
        .build();
    operation.responses.responses.entry(status.to_owned()).or_insert_with(|| response.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_methods_come_from_the_document() {
        assert_eq!(allowed_methods("/api/admin/users"), Some("GET, POST"));
        assert_eq!(allowed_methods("/api/auth/login"), Some("POST"));
        assert_eq!(allowed_methods("/api/nothing"), None);
        assert!(template_matches("/api/results/{id}", "/api/results/42"));
        assert!(!template_matches("/api/results/{id}", "/api/results/"));
        assert!(!template_matches("/api/results/{id}", "/api/results/42/more"));
    }

    #[test]
    fn a_path_falls_under_its_template_and_a_literal_path_wins() {
        assert_eq!(route_template("/api/auth/me"), Some("/api/auth/me"));
        assert_eq!(route_template("/api/documents/42"), Some("/api/documents/{document_id}"));
        assert_eq!(route_template("/api/documents/import"), Some("/api/documents/import"));
        assert_eq!(route_template("/api/documents/42/versions"), Some("/api/documents/{document_id}/versions"));
        assert_eq!(route_template("/etc/passwd"), None);
    }
}
