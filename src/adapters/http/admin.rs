//! `/api/admin/*`: user administration and the audit trail of deletions (admin role only, enforced
//! by the access table).

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::{Reply, Response};

use super::AppState;
use super::auth::respond;
use super::dto::{CreateUserRequest, UpdateUserRequest, UserListResponse, UserResponse};
use super::error::{ApiError, ErrorBody, json_body};
use super::filters::{authenticated, with_state};
use super::paging::ListingParams;
use crate::domain::auth::{AuthError, Principal, UserChanges, UserId};
use crate::domain::listing::check_page;

pub fn routes(state: Arc<AppState>) -> BoxedFilter<(Response,)> {
    let users = warp::path!("api" / "admin" / "users");
    let create = users
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .and(json_body::<CreateUserRequest>(state.max_body_bytes))
        .then(create_user);
    let list = users.and(warp::get()).and(with_state(state.clone())).and(authenticated(state.clone())).then(list_users);
    let update = warp::path!("api" / "admin" / "users" / String)
        .and(warp::patch())
        .and(with_state(state.clone()))
        .and(authenticated(state.clone()))
        .and(json_body::<UpdateUserRequest>(state.max_body_bytes))
        .then(update_user);
    let deletions = warp::path!("api" / "admin" / "deletions")
        .and(warp::get())
        .and(with_state(state.clone()))
        .and(authenticated(state))
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .then(list_deletions);
    create
        .map(respond)
        .or(list.map(respond))
        .unify()
        .or(update.map(respond))
        .unify()
        .or(deletions.map(respond))
        .unify()
        .boxed()
}

/// POST /api/admin/users
#[utoipa::path(post, path = "/api/admin/users", tag = "admin", request_body = CreateUserRequest,
    description = "Creates a password user. The password must have at least 12 characters.",
    responses(
        (status = 201, description = "Created", body = UserResponse),
        (status = 409, description = "E-mail already registered", body = ErrorBody),
    ))]
pub async fn create_user(
    state: Arc<AppState>,
    _admin: Principal,
    body: CreateUserRequest,
) -> Result<impl Reply, ApiError> {
    let user = state.auth.create_user(&body.email, body.password, body.role.into()).await?;
    Ok(warp::reply::with_status(warp::reply::json(&UserResponse::from(&user)), StatusCode::CREATED))
}

/// GET /api/admin/users
#[utoipa::path(get, path = "/api/admin/users", tag = "admin",
    description = "Every user, oldest first.",
    responses((status = 200, description = "The users", body = UserListResponse)))]
pub async fn list_users(state: Arc<AppState>, _admin: Principal) -> Result<impl Reply, ApiError> {
    let users: Vec<UserResponse> = state.auth.list_users().await?.iter().map(UserResponse::from).collect();
    Ok(warp::reply::json(&UserListResponse { total: users.len(), users }))
}

/// PATCH /api/admin/users/{user_id}
#[utoipa::path(patch, path = "/api/admin/users/{user_id}", tag = "admin", request_body = UpdateUserRequest,
    params(("user_id" = uuid::Uuid, Path, description = "The user's id")),
    description = "Changes a user's role or disables/enables them. Disabling or demoting revokes the user's \
                   refresh tokens; access tokens already issued stay valid until they expire. Administrators \
                   cannot disable or demote themselves.",
    responses(
        (status = 200, description = "The updated user", body = UserResponse),
        (status = 404, description = "No such user", body = ErrorBody),
    ))]
pub async fn update_user(
    user_id: String,
    state: Arc<AppState>,
    admin: Principal,
    body: UpdateUserRequest,
) -> Result<impl Reply, ApiError> {
    let id: UserId = user_id.parse().map_err(|_| ApiError::from(AuthError::NoSuchUser))?;
    let changes = UserChanges { role: body.role.map(Into::into), disabled: body.disabled };
    let user = state.auth.update_user(admin, id, changes).await?;
    Ok(warp::reply::json(&UserResponse::from(&user)))
}

/// GET /api/admin/deletions
#[utoipa::path(get, path = "/api/admin/deletions", tag = "admin",
    params(("page" = Option<u32>, Query, description = "From 1 (default 1)"),
           ("limit" = Option<u32>, Query, description = "1-200 (default 50)")),
    description = "The audit trail of deleted documents and statement sets, newest first: `{deletions: [{kind \
                   (document | statement_set), id, owner, deleted_by, deleted_at, freed: {documents, statement_sets, \
                   bytes}, summary}], page, limit, total, total_pages}`. A document's summary has its title, deal, \
                   state, each version's SHA-256, size and author, and its review history; a set's has the \
                   borrower, deal, periods and a SHA-256 of its figures. Entries are never changed or removed.",
    responses(
        (status = 200, description = "One page", body = Object),
        (status = 400, description = "Invalid page or limit", body = ErrorBody),
    ))]
pub async fn list_deletions(state: Arc<AppState>, _admin: Principal, query: String) -> Result<impl Reply, ApiError> {
    let params = ListingParams::parse_pages(&query)?;
    check_page(params.page, params.limit).map_err(|e| ApiError::invalid_field(e.field, e.message))?;
    let (entries, total) =
        state.deletions.list(params.page, params.limit).await.map_err(|e| ApiError::internal(e.into()))?;
    Ok(warp::reply::json(&params.page_body("deletions", entries.iter().map(|e| e.json()).collect(), total)))
}
