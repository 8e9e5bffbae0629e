//! The parties found so far, one draft per name (compared by its letters and digits), each with
//! every role stated for it (a role stated in several places once per place, up to
//! [`MAX_SOURCES_PER_ROLE`]) and every place its name was read. Every reader of parties adds to
//! the same drafts.

use std::ops::Range;

use super::names::{is_role_word_name, name_key};
use crate::domain::extraction::document::Document;
use crate::domain::extraction::model::PartyRole;
use crate::domain::extraction::sourced::Sourced;

pub(super) struct PartyDraft {
    key: String,
    pub(super) name: Sourced<String>,
    pub(super) roles: Vec<Sourced<PartyRole>>,
    pub(super) first_mention: usize,
    /// Every place the name was read, for attaching the LEIs stated after it.
    pub(super) mentions: Vec<Range<usize>>,
}

/// The most statements of one role kept for a party.
const MAX_SOURCES_PER_ROLE: usize = 3;

#[derive(Default)]
pub(crate) struct Drafts(pub(super) Vec<PartyDraft>);

impl Drafts {
    /// Whether any party drafted so far has `role`.
    pub(crate) fn any_has_role(&self, role: PartyRole) -> bool {
        self.0.iter().any(|p| p.roles.iter().any(|r| *r.value() == role))
    }

    /// Whether the party named `stated` has been drafted with `role`.
    pub(crate) fn has_role(&self, stated: &str, role: PartyRole) -> bool {
        let key = name_key(stated);
        self.0.iter().any(|p| p.key == key && p.roles.iter().any(|r| *r.value() == role))
    }

    /// Whether the party named `stated` has been drafted with any role.
    pub(crate) fn has_any_role(&self, stated: &str) -> bool {
        let key = name_key(stated);
        self.0.iter().any(|p| p.key == key && !p.roles.is_empty())
    }

    pub(crate) fn add(&mut self, doc: &Document<'_>, name: Range<usize>, roles: &[(PartyRole, Range<usize>)]) {
        let stated = doc.slice(name.clone());
        let key = name_key(stated);
        if key.len() < 3 || is_role_word_name(stated) {
            return;
        }
        let index = match self.0.iter().position(|p| p.key == key) {
            Some(index) => index,
            None => {
                let Some(sourced) = doc.sourced(name.clone(), stated.split_whitespace().collect::<Vec<_>>().join(" "))
                else {
                    return;
                };
                self.0.push(PartyDraft {
                    key,
                    name: sourced,
                    roles: Vec::new(),
                    first_mention: name.start,
                    mentions: Vec::new(),
                });
                self.0.len() - 1
            }
        };
        if let Some(party) = self.0.get_mut(index) {
            party.first_mention = party.first_mention.min(name.start);
            party.mentions.push(name.clone());
            // A role stated again in another place keeps that statement too: the evidence check
            // states the role by the first of them that is the party's own (a preamble's "and the
            // Lenders party hereto" is a class, the lender's signature page its own role phrase).
            for (role, span) in roles {
                let mut sources = party.roles.iter().filter(|r| r.value() == role);
                let known =
                    sources.clone().count() >= MAX_SOURCES_PER_ROLE || sources.any(|r| r.span().range() == *span);
                if !known && let Some(sourced) = doc.sourced(span.clone(), *role) {
                    party.roles.push(sourced);
                }
            }
        }
    }
}
