//! What every listing endpoint shares: the page request's bounds and whose records a caller sees.

use super::auth::{Principal, Role, UserId};

/// Most records one page holds.
pub const MAX_PAGE_LIMIT: u32 = 200;

/// A page request out of bounds: which field, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageError {
    pub field: &'static str,
    pub message: &'static str,
}

/// Checks a page request: `page` from 1, `limit` 1–[`MAX_PAGE_LIMIT`].
///
/// # Errors
/// [`PageError`] naming `page` or `limit`.
pub fn check_page(page: u32, limit: u32) -> Result<(), PageError> {
    if page == 0 {
        return Err(PageError { field: "page", message: "must be 1 or more" });
    }
    if !(1..=MAX_PAGE_LIMIT).contains(&limit) {
        return Err(PageError { field: "limit", message: "must be between 1 and 200" });
    }
    Ok(())
}

/// Whose records `caller` lists: their own, or everyone's (`None`) for administrators.
pub fn listed_owner(caller: Principal) -> Option<UserId> {
    (caller.role != Role::Admin).then_some(caller.user_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_start_at_one_and_hold_at_most_two_hundred() {
        assert_eq!(check_page(1, 1), Ok(()));
        assert_eq!(check_page(9, MAX_PAGE_LIMIT), Ok(()));
        assert_eq!(check_page(0, 10).map_err(|e| e.field), Err("page"));
        assert_eq!(check_page(1, 0).map_err(|e| e.field), Err("limit"));
        assert_eq!(check_page(1, MAX_PAGE_LIMIT + 1).map_err(|e| e.field), Err("limit"));
    }

    #[test]
    fn administrators_list_everyones_records() {
        let user = UserId::new_random();
        assert_eq!(listed_owner(Principal { user_id: user, role: Role::Analyst }), Some(user));
        assert_eq!(listed_owner(Principal { user_id: user, role: Role::Admin }), None);
    }
}
