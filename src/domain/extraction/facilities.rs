//! Facilities: which facilities an agreement makes available, and each one's type, name,
//! commitment and final maturity, with its pricing (see [`super::pricing`]) applied. Every
//! stated value is a candidate scoped to facilities and resolved per facility as
//! [`super::scope`] describes.

mod commitments;
mod kinds;
mod maturities;
#[cfg(test)]
mod tests;

use time::Date;

use super::document::{Document, Report};
use super::evidence::{leave_aside_replaced, leave_aside_scoped, leave_aside_title_totals};
use super::facility_refs::{FacilityKey, Qualifier};
use super::model::{AmendedTerm, AmendedTermCategory, Facility, FacilityType, StatedValue};
use super::numbers::Money;
use super::pricing::{self, PricingCandidates};
use super::scope::{FacilityFrame, Scoped, covers, resolve};
use super::sourced::Sourced;
use commitments::{Commitments, commitment_candidates, resolve_commitment};
use kinds::{
    facility_name, lettered_type, named_where_it_lends, reborrowing, reimbursement_loans, revolving_by_its_marks,
    titled_revolving,
};
use maturities::{commitment_end_candidates, maturity_candidates};

/// The facilities of the agreement with every field resolved.
/// The facilities, with `changes` the values the document states it replaces (see `amendments.rs`).
pub(crate) fn extract(doc: &Document<'_>, changes: &[AmendedTerm], report: &mut Report) -> Vec<Facility> {
    let mut commitments = commitment_candidates(doc, report);
    let mut maturities = maturity_candidates(doc, changes, report);
    let mut pricing = pricing::candidates(doc);
    // A recital of fact or a benchmark replacement provision states no term of this document.
    leave_aside_scoped(doc, "/facilities/*/commitment", &mut commitments.defining, report);
    leave_aside_scoped(doc, "/facilities/*/commitment", &mut commitments.passing, report);
    leave_aside_scoped(doc, "/facilities/*/terminationDate", &mut maturities, report);
    pricing.leave_aside_other_provisions(doc, report);
    // A value the document replaces is the old term, wherever else it is stated.
    let same_money = |before: &StatedValue, money: &Money| matches!(before, StatedValue::Money(m) if m == money);
    let same_rate =
        |before: &StatedValue, rate: &rust_decimal::Decimal| matches!(before, StatedValue::Rate(r) if r == rate);
    for candidates in [&mut commitments.defining, &mut commitments.passing] {
        leave_aside_replaced(
            changes,
            AmendedTermCategory::Commitment,
            "/facilities/*/commitment",
            candidates,
            same_money,
            report,
        );
    }
    leave_aside_replaced(
        changes,
        AmendedTermCategory::Margin,
        "/facilities/*/spread",
        &mut pricing.spreads,
        same_rate,
        report,
    );

    let mut frames: Vec<FacilityFrame> = Vec::new();
    let add_key = |key: FacilityKey, frames: &mut Vec<FacilityFrame>| {
        if frames.iter().any(|f| f.key == key) {
            return;
        }
        let facility_type = match key {
            FacilityKey::Lettered(letter) => lettered_type(doc, letter).map(|t| *t.value()),
            other => other.stated_type(),
        };
        frames.push(FacilityFrame { key, facility_type, currency: None });
    };
    for candidate in commitments.all() {
        for &key in &candidate.keys {
            add_key(key, &mut frames);
        }
    }
    // Facilities without a stated commitment still exist if values are stated for them, unless a
    // generic reference ("Term Loans") merely covers facilities already found.
    let scoped_keys = maturities
        .iter()
        .flat_map(|c| c.keys.iter())
        .chain(pricing.spreads.iter().flat_map(|c| c.keys.iter()))
        .chain(pricing.grids.iter().flat_map(|c| c.keys.iter()))
        .copied()
        .collect::<Vec<_>>();
    for key in scoped_keys {
        let covered = frames.iter().any(|f| covers(key, f, &frames));
        if !covered {
            add_key(key, &mut frames);
        }
    }
    // Tranches numbered under one letter ("Term B-1" refinanced by "Term B-2") leave it unsaid
    // which of them is a facility of the amended agreement and which is repaid: both are withheld
    // with their amounts rather than one tranche's stated for the other.
    let (numbered, rest): (Vec<FacilityFrame>, Vec<FacilityFrame>) =
        frames.into_iter().partition(|f| matches!(f.key, FacilityKey::NumberedTranche(..)));
    frames = rest;
    if !numbered.is_empty() {
        commitments.drop_where(
            report,
            "is the amount of one of several tranches numbered under one letter; which of them the agreement keeps the text does not say",
            |candidate| {
                !candidate.keys.is_empty() && candidate.keys.iter().all(|key| numbered.iter().any(|f| f.key == *key))
            },
        );
    }
    // A facility the text names only where it speaks of other debt (the revolving facility the
    // proceeds repay, a line a covenant lets the borrower take from another lender) is none this
    // agreement makes available, whatever amount is stated beside it.
    if frames.len() > 1 {
        let lends = |frame: &FacilityFrame| !checks_lending(frame.key) || named_where_it_lends(doc, frame.key, &[]);
        let (kept, other): (Vec<FacilityFrame>, Vec<FacilityFrame>) = frames.into_iter().partition(lends);
        if kept.is_empty() {
            frames = other;
        } else {
            commitments.drop_where(
                report,
                "is the amount of a facility the text names only as other debt, never as one it makes available",
                |candidate| matches!(candidate.keys.as_slice(), [key] if other.iter().any(|f| f.key == *key)),
            );
            frames = kept;
        }
    }
    // A total in the title sizes the whole agreement: it is no one facility's when there are several.
    leave_aside_title_totals(doc, frames.len(), &mut commitments.defining, report);
    leave_aside_title_totals(doc, frames.len(), &mut commitments.passing, report);
    let general_commitments = commitments.all().filter(|c| c.keys.is_empty()).count();
    // An amendment may restate the facility's maturity or pricing without its amount.
    let general_terms = maturities.iter().any(|c| c.keys.is_empty())
        || pricing.spreads.iter().any(|c| c.keys.is_empty())
        || pricing.grids.iter().any(|c| c.keys.is_empty());
    if frames.is_empty() && (general_commitments > 0 || general_terms) {
        // A single-facility agreement states its amount without naming the facility ("Total
        // Commitments", "Amount:"). When the text refers to one kind of facility only, that is the
        // facility; otherwise it stays unnamed rather than guessed.
        // The one kind named must not contradict what the agreement says of reborrowing: a loan
        // that "may not be reborrowed" is no revolving facility because a revolving line is
        // mentioned in passing, nor is a line that may be reborrowed a term loan.
        // Nor is a kind named only where the text speaks of other debt (a loan agreement whose
        // proceeds repay "the Revolving Loans" of an existing agreement): the kind must be named
        // where the agreement lends or states its amount.
        let mut kinds = doc.facility_refs.iter().map(|r| r.key);
        let reborrow = reborrowing(doc).map(|t| *t.value());
        let agrees = |key: FacilityKey| match (key.stated_type(), reborrow) {
            (Some(named), Some(read)) => revolving_kind(named) == revolving_kind(read),
            _ => true,
        };
        let amounts: Vec<_> = commitments.all().map(|c| c.value.span().range()).collect();
        match kinds.next() {
            Some(only) if kinds.all(|k| k == only) && agrees(only) && named_where_it_lends(doc, only, &amounts) => {
                add_key(only, &mut frames)
            }
            _ => return single_unnamed_facility(doc, &commitments, maturities, &pricing, report),
        }
    }

    // Revolving loans that may be borrowed only to reimburse drawings under letters of credit do
    // not make a revolving credit facility: the facility is the letters of credit.
    let reimbursing = match frames.as_slice() {
        [only] if only.key == FacilityKey::Revolving => reimbursement_loans(doc),
        _ => None,
    };
    if let (Some(_), [only]) = (&reimbursing, frames.as_mut_slice()) {
        only.facility_type = Some(FacilityType::LetterOfCredit);
    }
    let revolving =
        |t: Option<FacilityType>| matches!(t, Some(FacilityType::RevolvingCredit | FacilityType::LetterOfCredit));
    if !frames.is_empty() && frames.iter().all(|f| revolving(f.facility_type)) {
        maturities.extend(commitment_ends(doc, report));
    }

    // Currencies come from the commitments, so resolve those first.
    let mut resolved_commitments = Vec::with_capacity(frames.len());
    let snapshot = frames.clone();
    for (index, frame) in frames.iter_mut().enumerate() {
        let field = format!("/facilities/{index}/commitment");
        let commitment = resolve_commitment(&field, &commitments, frame, &snapshot, report);
        // A tranche named by its currency lends in it, even when its size is stated as a dollar
        // equivalent ("Euro Revolving Commitments … the Dollar Equivalent of $20,000,000").
        frame.currency =
            frame.key.qualifier().and_then(Qualifier::currency).or(commitment.as_ref().map(|c| c.value().currency));
        resolved_commitments.push(commitment);
    }
    let unused_general: Vec<&Scoped<Sourced<Money>>> = commitments.all().filter(|c| c.keys.is_empty()).collect();
    if frames.len() > 1 {
        for candidate in unused_general {
            report.dropped(
                "/facilities/*/commitment",
                candidate.value.quote(),
                candidate.value.span().range(),
                "names no facility in an agreement with several",
            );
        }
    }

    let mut facilities = Vec::with_capacity(frames.len());
    for (index, (frame, commitment)) in frames.iter().zip(resolved_commitments).enumerate() {
        let base = format!("/facilities/{index}");
        let facility_type = match frame.key {
            _ if reimbursing.is_some() => reimbursing.clone(),
            FacilityKey::Lettered(letter) => lettered_type(doc, letter),
            key => facility_name(doc, key).and_then(|name| {
                let ty = key.stated_type()?;
                doc.sourced(name.span().range(), ty)
            }),
        };
        let termination_date = resolve(&format!("{base}/terminationDate"), &maturities, frame, &frames, report);
        // The letters of credit keep the name of their own when the revolving loans are split off.
        let name = match reimbursing {
            Some(_) => facility_name(doc, FacilityKey::LetterOfCredit),
            None => facility_name(doc, frame.key),
        };
        let mut facility = unpriced(name, facility_type, commitment, termination_date);
        pricing::apply(doc, &pricing, &mut facility, frame, &frames, &base, report);
        facilities.push(facility);
    }
    if let (Some(_), [letters]) = (&reimbursing, frames.as_slice()) {
        facilities.push(reimbursement_loan_facility(doc, &pricing, &maturities, letters, report));
    }
    facilities
}

/// Whether a facility of `key`'s kind is made available by lending: LMA's lettered facilities
/// are described apart from their name, and letters of credit are issued, not lent.
fn checks_lending(key: FacilityKey) -> bool {
    !matches!(key, FacilityKey::Lettered(_) | FacilityKey::LetterOfCredit)
}

/// Whether loans of `kind` may be borrowed again once repaid.
fn revolving_kind(kind: FacilityType) -> bool {
    kind == FacilityType::RevolvingCredit
}

/// The dates the commitments end, which are a revolving facility's maturity, as stated in the
/// document's own terms.
fn commitment_ends(doc: &Document<'_>, report: &mut Report) -> Vec<Scoped<Sourced<Date>>> {
    // A warehouse facility's advances are repaid on a "Final Maturity Date" after the commitments
    // end (its revolving period): there the commitments' end is not the facility's maturity.
    if doc.structure.definitions_where(|key| key.ends_with("final maturity date")).next().is_some() {
        return Vec::new();
    }
    let mut ends = commitment_end_candidates(doc);
    leave_aside_scoped(doc, "/facilities/*/terminationDate", &mut ends, report);
    ends
}

/// A facility with its name, type, amount and maturity, before pricing is applied to it.
fn unpriced(
    name: Option<Sourced<String>>,
    facility_type: Option<Sourced<FacilityType>>,
    commitment: Option<Sourced<Money>>,
    termination_date: Option<Sourced<Date>>,
) -> Facility {
    Facility {
        name,
        facility_type,
        commitment,
        optional_currencies: Vec::new(),
        floating_rate_index: None,
        index_tenor: None,
        interest_periods: None,
        spread: None,
        base_rate_spread: None,
        pricing_grid: Vec::new(),
        floor: None,
        commitment_fee: None,
        payment_frequency: None,
        day_count_fraction: None,
        termination_date,
    }
}

/// The revolving loans that only reimburse letter of credit drawings, as a facility beside the
/// letters: the loans bear interest (the letters bear fees) and fall due at the maturity, but they
/// draw on the letters' commitment, so no commitment of their own is stated (a second copy of the
/// amount would double the credit).
fn reimbursement_loan_facility(
    doc: &Document<'_>,
    pricing: &PricingCandidates,
    maturities: &[Scoped<Sourced<Date>>],
    letters: &FacilityFrame,
    report: &mut Report,
) -> Facility {
    let frame = FacilityFrame {
        key: FacilityKey::Revolving,
        facility_type: Some(FacilityType::RevolvingCredit),
        currency: letters.currency,
    };
    let frames = [frame.clone()];
    let base = "/facilities/1";
    let name = facility_name(doc, FacilityKey::Revolving);
    let facility_type = name.as_ref().and_then(|n| doc.sourced(n.span().range(), FacilityType::RevolvingCredit));
    let termination_date = resolve(&format!("{base}/terminationDate"), maturities, &frame, &frames, report);
    let mut facility = unpriced(name, facility_type, None, termination_date);
    pricing::apply_floating_rate(doc, pricing, &mut facility, &frame, &frames, base, report);
    facility
}

/// An agreement whose only commitment statements name no facility (a term sheet's "Amount:"):
/// one facility, without a name or type, holding every general value.
fn single_unnamed_facility(
    doc: &Document<'_>,
    commitments: &Commitments,
    mut maturities: Vec<Scoped<Sourced<Date>>>,
    pricing: &PricingCandidates,
    report: &mut Report,
) -> Vec<Facility> {
    let mut frame = FacilityFrame { key: FacilityKey::Term, facility_type: None, currency: None };
    let frames = [frame.clone()];
    let commitment = resolve_commitment("/facilities/0/commitment", commitments, &frame, &frames, report);
    frame.currency = commitment.as_ref().map(|c| c.value().currency);
    // What the agreement says of reborrowing comes first: a revolving title does not make loans
    // that "may not be reborrowed" revolving.
    let facility_type = reborrowing(doc).or_else(|| titled_revolving(doc)).or_else(|| revolving_by_its_marks(doc));
    frame.facility_type = facility_type.as_ref().map(|t| *t.value());
    if frame.facility_type == Some(FacilityType::RevolvingCredit) {
        maturities.extend(commitment_ends(doc, report));
    }
    let termination_date = resolve("/facilities/0/terminationDate", &maturities, &frame, &frames, report);
    let mut facility = unpriced(None, facility_type, commitment, termination_date);
    pricing::apply(doc, pricing, &mut facility, &frame, &frames, "/facilities/0", report);
    vec![facility]
}
