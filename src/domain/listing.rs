//! What every listing endpoint shares: the page request's bounds, whose records a caller sees, and
//! the query a page of stored workflow runs (analyses, research, people) is read with.

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

/// Which stored runs of one kind to list, newest first: a page of one owner's (or everyone's)
/// runs, optionally only those of one deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunQuery {
    /// `None`: every owner's (administrators).
    pub owner: Option<UserId>,
    pub deal_id: Option<i64>,
    /// 1-based.
    pub page: u32,
    pub limit: u32,
}

impl RunQuery {
    /// The page `caller` asked for: their own runs, or everyone's for administrators.
    ///
    /// # Errors
    /// [`PageError`] when the page or limit is out of bounds ([`check_page`]).
    pub fn for_caller(caller: Principal, deal_id: Option<i64>, page: u32, limit: u32) -> Result<Self, PageError> {
        check_page(page, limit)?;
        Ok(Self { owner: listed_owner(caller), deal_id, page, limit })
    }

    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.limit)
    }
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

    #[test]
    fn a_run_query_lists_the_callers_runs_and_offsets_whole_pages() {
        let analyst = Principal { user_id: UserId::new_random(), role: Role::Analyst };
        let query = RunQuery::for_caller(analyst, Some(7), 3, 20).expect("in bounds");
        assert_eq!(query, RunQuery { owner: Some(analyst.user_id), deal_id: Some(7), page: 3, limit: 20 });
        assert_eq!(query.offset(), 40);
        assert_eq!(RunQuery::for_caller(analyst, None, 0, 20).map_err(|e| e.field), Err("page"));
    }
}
