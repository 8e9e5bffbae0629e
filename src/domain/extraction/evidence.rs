//! The evidence checks: before a value is stated, its evidence is read the way a lawyer reads it,
//! and a value whose evidence fails is withheld, with the reason in [`super::Extraction::warnings`]:
//! `dropped: <field> "<quote>" at <start>..<end> <reason>` for a statement a reader leaves aside,
//! `withheld: <field> "<quote>" at <start>..<end> <reason>` for a value [`check`] takes back once
//! every reader has run. A wrong value costs more than a missing one: a reviewer fills a gap, but
//! may well trust a value that is wrong.
//!
//! The rules, each with its tests:
//!
//! 1. **Operative text.** A facility's terms come from the operative text, never from a recital
//!    of fact (what an existing agreement provides), nor from the benchmark replacement provisions
//!    (a rate that may replace the benchmark, unless the replacement is in force at signing), nor
//!    from an attachment that describes the borrower's other debt (a schedule of existing or
//!    permitted indebtedness, of outstanding notes).
//!    Which provisions those are is `provisions.rs`'s; the readers of facility terms leave their
//!    statements aside ([`leave_aside`]) before choosing among them, so that the operative
//!    statement of a term is used, and the benchmark a facility takes when no statement names one
//!    is chosen among the benchmarks in force (`pricing/index.rs`). An amendment that leaves the
//!    agreement in force is the exception: its recitals state that agreement's terms, which
//!    continue unless changed; but what its own text says it leaves as it was ("nothing herein
//!    modifies the Term Loans, which continue to bear interest at …") is no term it states.
//! 2. **Title totals.** A total in the title or on the cover is a facility's commitment only when
//!    the agreement has one facility (`totals.rs`).
//! 3. **Whole names.** A party whose stated name is the end of a longer name (cut by a line or
//!    page break) is withheld with all its roles, and so is a name misprinted where it is stated
//!    (a word printed only there, and elsewhere with a doubled letter undone) (`names.rs`).
//! 4. **Own role phrase.** A party holds a role only by its own role phrase in its own party
//!    block; a co-, deputy or title agent is not the administrative agent, a class of parties
//!    ("the Lenders party hereto") is no one's role, and the borrower is never an agent, arranger
//!    or lender of its own facility (`roles.rs`).
//! 5. **Replaced values.** A value the document says it replaces ("increased from $250,000,000 to
//!    …", "by replacing "2.75%" with …") is the amended agreement's old term, not a term of the
//!    agreement as it now stands, wherever else the document states it (a recital, a passing
//!    description): such a commitment or margin is left aside ([`leave_aside_replaced`]).

mod names;
mod roles;
mod totals;

use super::document::{Document, Report, quoted};
use super::model::{AmendedTerm, AmendedTermCategory, CreditAgreement, Party, PartyRole, StatedValue};
use super::scope::Scoped;
use super::sourced::Sourced;
pub(crate) use totals::leave_aside_title_totals;

/// Withholds every value of `agreement` whose evidence fails (rules 3 and 4), saying why in
/// `report`: run once every reader has run, on the agreement as read. A party left with no role
/// is no party of the agreement.
pub(crate) fn check(doc: &Document<'_>, agreement: &mut CreditAgreement, report: &mut Report) {
    let printing = names::Printing::of(doc.text);
    for party in &mut agreement.parties {
        check_party(doc, &printing, party, report);
    }
    agreement.parties.retain(|party| !party.roles.is_empty());
}

/// Rules 3 and 4 on one party: a name cut from a longer one loses every role; each role not
/// stated by the party's own role phrase is withheld.
fn check_party(doc: &Document<'_>, printing: &names::Printing<'_>, party: &mut Party, report: &mut Report) {
    if let Some(lead) = names::longer_name(doc, printing, party.name.span().range()) {
        let reason = format!(
            "is the end of a longer name, whose first words {} stand before it",
            quoted(doc.slice(lead.clone()), lead)
        );
        withhold_all(party, &reason, report);
        return;
    }
    if let Some((stated, elsewhere)) = names::misprinted_word(printing, party.name.value()) {
        let reason = format!("is misprinted: the document prints \"{stated}\" only here and \"{elsewhere}\" elsewhere");
        withhold_all(party, &reason, report);
        return;
    }
    // A role may be stated in several places (the readers keep each): it stands by the first
    // statement that is the party's own, and is withheld, for the first statement's reason, only
    // when none is.
    // Each role in the order it was first stated; its statements are read in order, and only until
    // one is the party's own.
    let mut kept: Vec<Sourced<PartyRole>> = Vec::new();
    let mut seen: Vec<PartyRole> = Vec::new();
    for role in &party.roles {
        if seen.contains(role.value()) {
            continue;
        }
        seen.push(*role.value());
        let mut first_reason: Option<String> = None;
        for statement in party.roles.iter().filter(|r| r.value() == role.value()) {
            match roles::objection(doc, party, statement) {
                None => {
                    kept.push(statement.clone());
                    first_reason = None;
                    break;
                }
                Some(reason) => {
                    first_reason.get_or_insert(reason);
                }
            }
        }
        if let Some(reason) = first_reason {
            withheld(report, &role_field(role), &party.name, &reason);
        }
    }
    party.roles = kept;
}

/// Withholds every role of `party` for one `reason` (each role once).
fn withhold_all(party: &mut Party, reason: &str, report: &mut Report) {
    let mut reported: Vec<PartyRole> = Vec::new();
    for role in &party.roles {
        if !reported.contains(role.value()) {
            reported.push(*role.value());
            withheld(report, &role_field(role), &party.name, reason);
        }
    }
    party.roles.clear();
}

/// The field a party role is reported under: `/parties[role=AdministrativeAgent]`.
fn role_field(role: &Sourced<PartyRole>) -> String {
    format!("/parties[role={}]", role.value())
}

/// Reports a value withheld for `reason`.
fn withheld<T>(report: &mut Report, field: &str, value: &Sourced<T>, reason: &str) {
    report.warnings.push(format!("withheld: {field} {} {reason}", quoted(value.quote(), value.span().range())));
}

/// Rule 1 on a reader's candidates: drops those stated in a provision that does not state this
/// document's terms, reporting each under `field`. `statement` gives a candidate's quote and span.
pub(crate) fn leave_aside<C>(
    doc: &Document<'_>,
    field: &str,
    candidates: &mut Vec<C>,
    statement: impl Fn(&C) -> Option<(&str, std::ops::Range<usize>)>,
    report: &mut Report,
) {
    candidates.retain(|candidate| {
        let Some((quote, span)) = statement(candidate) else { return true };
        match doc.provisions.set_aside(span.clone()) {
            Some(set_aside) => {
                report.dropped(field, quote, span, set_aside.reason());
                false
            }
            None => true,
        }
    });
}

/// [`leave_aside`] for candidates scoped to facilities.
pub(crate) fn leave_aside_scoped<T>(
    doc: &Document<'_>,
    field: &str,
    candidates: &mut Vec<Scoped<Sourced<T>>>,
    report: &mut Report,
) {
    leave_aside(doc, field, candidates, |c| Some((c.value.quote(), c.value.span().range())), report);
}

/// Rule 5 on a reader's candidates: drops those whose value a change of `category` in this
/// document replaces (the change's `before`), reporting each under `field`. `same` says whether a
/// replaced value is the candidate's.
pub(crate) fn leave_aside_replaced<T>(
    changes: &[AmendedTerm],
    category: AmendedTermCategory,
    field: &str,
    candidates: &mut Vec<Scoped<Sourced<T>>>,
    same: impl Fn(&StatedValue, &T) -> bool,
    report: &mut Report,
) {
    let replaced: Vec<&Sourced<StatedValue>> =
        changes.iter().filter(|c| c.category == category).filter_map(|c| c.before.as_ref()).collect();
    if replaced.is_empty() {
        return;
    }
    candidates.retain(|candidate| {
        let Some(before) = replaced.iter().find(|before| same(before.value(), candidate.value.value())) else {
            return true;
        };
        let reason = format!(
            "is a value this document replaces ({} at {}..{}), not a term of the agreement as amended",
            before.quote(),
            before.span().start,
            before.span().end
        );
        report.dropped(field, candidate.value.quote(), candidate.value.span().range(), &reason);
        false
    });
}

#[cfg(test)]
mod tests;
