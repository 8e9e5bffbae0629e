//! The list of chat sessions a caller sees (`GET /api/digitizer-chatbot/sessions`): whose sessions
//! a page holds — the caller's own, everyone's for administrators, as in every listing of the
//! service (administrators may read any session, though they chat only in their own) — in which
//! order, and the one-line title each session is shown under, made from its first user message.

use time::OffsetDateTime;

use crate::domain::auth::{Principal, UserId};
use crate::domain::listing::{PageError, check_page, listed_owner};

/// Longest title, in characters, the ellipsis included.
pub const TITLE_CHARS: usize = 80;

/// How much of a session's first user message a store hands over for its title, in characters:
/// more than a title shows, so that a message with runs of whitespace still fills one, without
/// reading a long message (up to 4,000 characters) whole for every session of a page.
pub const OPENING_CHARS: usize = 3 * TITLE_CHARS;

/// Which sessions to list: a page of one owner's (or everyone's) sessions, the most recently
/// active first (`updated_at`, then the id, both descending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionQuery {
    /// `None`: every owner's (administrators).
    pub owner: Option<UserId>,
    /// Only sessions that launched a workflow linked to this deal.
    pub deal_id: Option<i64>,
    /// 1-based.
    pub page: u32,
    pub limit: u32,
}

impl SessionQuery {
    /// The page `caller` asked for: their own sessions, or everyone's for administrators.
    ///
    /// # Errors
    /// [`PageError`] when the page or limit is out of bounds ([`check_page`]).
    pub fn for_caller(caller: Principal, page: u32, limit: u32) -> Result<Self, PageError> {
        check_page(page, limit)?;
        Ok(Self { owner: listed_owner(caller), deal_id: None, page, limit })
    }

    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.limit)
    }
}

/// One session as a list shows it: what tells it apart, without its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub owner: UserId,
    pub created_at: OffsetDateTime,
    /// The last activity: when the last message was stored (the creation, for an empty session).
    pub updated_at: OffsetDateTime,
    pub message_count: u64,
    /// The session's first user message, its first [`OPENING_CHARS`] characters; `None` when the
    /// session holds no user message (empty, or only direct launches).
    pub opening: Option<String>,
}

impl SessionSummary {
    /// The session's title ([`session_title`] of its opening); `None` without a user message.
    pub fn title(&self) -> Option<String> {
        self.opening.as_deref().map(session_title)
    }
}

/// The title of a session whose first user message begins with `opening` (as a store hands it
/// over, at most [`OPENING_CHARS`] characters): one line — each run of whitespace, line breaks
/// included, becomes one space — of at most [`TITLE_CHARS`] characters. A longer message is cut
/// after a whole word when one ends in the second half of the room (else mid-word) and ends in
/// "…"; so does an opening the store cut, even when its line fits.
pub fn session_title(opening: &str) -> String {
    let line = opening.split_whitespace().collect::<Vec<_>>().join(" ");
    // A store cuts at OPENING_CHARS: an opening that long may go on. (A message of exactly that
    // length gets an ellipsis it does not need only if its line is short: most of it whitespace.)
    let continues = opening.chars().count() >= OPENING_CHARS;
    if !continues && line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let room = TITLE_CHARS - 1;
    let mut kept: String = line.chars().take(room).collect();
    let cut_inside_a_word = line.chars().nth(room).is_some_and(|next| next != ' ');
    if cut_inside_a_word && let Some(space) = kept.rfind(' ').filter(|&at| kept[..at].chars().count() >= room / 2) {
        kept.truncate(space);
    }
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::auth::Role;

    #[test]
    fn analysts_list_their_own_sessions_and_administrators_everyones() {
        let analyst = Principal { user_id: UserId::new_random(), role: Role::Analyst };
        let query = SessionQuery::for_caller(analyst, 3, 20).expect("in bounds");
        assert_eq!(query, SessionQuery { owner: Some(analyst.user_id), deal_id: None, page: 3, limit: 20 });
        assert_eq!(query.offset(), 40);
        let admin = Principal { user_id: UserId::new_random(), role: Role::Admin };
        assert_eq!(SessionQuery::for_caller(admin, 1, 50).expect("in bounds").owner, None);
    }

    #[test]
    fn a_page_out_of_bounds_names_its_field() {
        let viewer = Principal { user_id: UserId::new_random(), role: Role::Viewer };
        assert_eq!(SessionQuery::for_caller(viewer, 0, 20).map_err(|e| e.field), Err("page"));
        assert_eq!(SessionQuery::for_caller(viewer, 1, 0).map_err(|e| e.field), Err("limit"));
        assert_eq!(SessionQuery::for_caller(viewer, 1, 201).map_err(|e| e.field), Err("limit"));
    }

    #[test]
    fn a_short_message_is_its_own_title_on_one_line() {
        assert_eq!(session_title("analyse Apple Inc"), "analyse Apple Inc");
        assert_eq!(session_title("  what is\n\tthe   margin? "), "what is the margin?");
        let exactly = "x".repeat(TITLE_CHARS);
        assert_eq!(session_title(&exactly), exactly);
    }

    #[test]
    fn a_long_message_is_cut_after_a_whole_word_with_an_ellipsis() {
        let message = "research the impact of SOFR floors on leveraged loans issued by mid-market borrowers in 2024";
        let title = session_title(message);
        assert_eq!(title, "research the impact of SOFR floors on leveraged loans issued by mid-market…");
        assert!(title.chars().count() <= TITLE_CHARS);
        assert!(message.starts_with(title.trim_end_matches('…')));
    }

    #[test]
    fn a_message_without_a_space_late_enough_is_cut_mid_word() {
        let word = "é".repeat(200);
        let title = session_title(&format!("a {word}"));
        assert_eq!(title.chars().count(), TITLE_CHARS);
        assert!(title.ends_with("éé…"), "{title}");
    }

    #[test]
    fn an_opening_the_store_cut_ends_in_an_ellipsis_even_when_its_line_fits() {
        let opening = format!("look into Jane Doe{}", " ".repeat(OPENING_CHARS - 18));
        assert_eq!(opening.chars().count(), OPENING_CHARS);
        assert_eq!(session_title(&opening), "look into Jane Doe…");
    }

    #[test]
    fn a_summary_without_a_user_message_has_no_title() {
        let summary = SessionSummary {
            id: "s".into(),
            owner: UserId::new_random(),
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: OffsetDateTime::UNIX_EPOCH,
            message_count: 1,
            opening: None,
        };
        assert_eq!(summary.title(), None);
        assert_eq!(SessionSummary { opening: Some("thanks".into()), ..summary }.title().as_deref(), Some("thanks"));
    }
}
