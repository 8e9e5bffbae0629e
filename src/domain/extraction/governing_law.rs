//! The governing law an agreement chooses for itself: its "governed by … the laws of …" clause or
//! `Governing Law:` label, mapped to CDM's `GoverningLawEnum`; not the law chosen for a note,
//! guaranty or other instrument, nor that of an attachment, unless an amendment incorporates it.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::document::{Document, Report, agree};
use super::model::GoverningLaw;
use super::sourced::Sourced;
use super::text::{contains_any_ci, pattern, sentence_around, trim_range};

/// A governing-law clause: "governed by (and construed in accordance with) the laws of …",
/// "construed, interpreted and enforced under the internal laws (without regard to …) of …",
/// "contracts made under … the laws of …", "governed by English law", and the law named first:
/// "The laws of the State of New York shall govern …", "Texas law governs …".
static GOVERNED_BY: LazyLock<Regex> = LazyLock::new(|| {
    let ws = r"[ \t\r\n]+";
    let reads =
        format!(r"(?:construed|interpreted|enforced)(?:,?{ws}(?:and{ws})?(?:construed|interpreted|enforced)){{0,2}}");
    // "interpreted, and the rights and liabilities of the parties determined, in accordance with"
    let determined = format!(
        r"(?:,?{ws}and{ws}the{ws}rights{ws}and{ws}(?:liabilities|obligations|duties){ws}of{ws}the{ws}parties{ws}(?:hereto{ws}|hereunder{ws})?determined,?)?"
    );
    let reads = format!("{reads}{determined}");
    let applies = format!(r"(?:in{ws}accordance{ws}with|according{ws}to|pursuant{ws}to|under)");
    // "governed exclusively by", "governed in all respects by"
    let how = format!(r"(?:(?:exclusively|solely|in{ws}all{ws}respects){ws})?");
    // A bank's form: "governed by federal law applicable to Lender and, to the extent not
    // preempted by federal law, the laws of the State of …": the state law is the one chosen.
    let federal = format!(
        r"(?:federal{ws}law{ws}applicable{ws}to{ws}[A-Za-z]+(?:{ws}[A-Za-z]+)?{ws}and,?{ws}to{ws}the{ws}extent{ws}not{ws}preempted{ws}by{ws}federal{ws}law,?{ws})?"
    );
    let kind = format!(r"(?:(?:internal|substantive|domestic){ws})?");
    let states = r"(?:state|commonwealth|province|grand[ \t]+duchy|federal[ \t]+republic|kingdom)";
    // A law named by its place as an adjective ("Massachusetts law governs", "governed by Colorado
    // law"): any jurisdiction the table names, longest first so "West Virginia" is not "Virginia".
    let mut names: Vec<&str> = JURISDICTIONS.iter().map(|(name, _)| *name).collect();
    names.extend(["japanese"]);
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    let adjectives = names.iter().map(|name| name.replace(' ', r"[ \t]+")).collect::<Vec<_>>().join("|");
    pattern(&format!(
        r"(?i)\b(?:(?:governed{ws}{how}(?:and{ws}controlled{ws})?by|contracts?{ws}made{ws}under|{reads}{ws}{applies}),?{ws}(?:and{ws}(?:shall{ws}be{ws})?{reads}{ws}{applies},?{ws})?{federal}(?:the{ws})?{kind}(?:(?:laws?|law)(?:{ws}\([^()]{{1,80}}\))?{ws}of{ws}(?:the{ws})?(?:{states}{ws}of{ws})?(?P<place>[A-Za-z][A-Za-z \t]{{2,40}}(?:\r?\n[ \t]*[A-Za-z][A-Za-z \t]{{0,30}})?)|(?P<adjective>{adjectives}){ws}law)|(?:the{ws})?{kind}laws?{ws}of{ws}(?:the{ws})?{states}{ws}of{ws}(?P<place_first>[A-Za-z][A-Za-z \t]{{2,40}}?)(?:{ws}\([^()]{{1,120}}\))?(?:,[^,.;]{{1,100}},|,)?{ws}(?:(?:shall|will){ws})?governs?\b|(?P<adjective_first>{adjectives}){ws}law{ws}(?:(?:shall|will){ws}govern|governs)\b)",
    ))
});

/// Jurisdictions and the `GoverningLawEnum` code each maps to, matched as prefixes of the stated
/// place (lower case).
const JURISDICTIONS: &[(&str, GoverningLaw)] = &[
    ("england and wales", GoverningLaw::Gben),
    ("england", GoverningLaw::Gben),
    ("english", GoverningLaw::Gben),
    ("scotland", GoverningLaw::Gbsc),
    ("scots", GoverningLaw::Gbsc),
    ("scottish", GoverningLaw::Gbsc),
    ("guernsey", GoverningLaw::Gbgy),
    ("jersey", GoverningLaw::Gbjy),
    ("isle of man", GoverningLaw::Gbim),
    ("ireland", GoverningLaw::Ie),
    ("irish", GoverningLaw::Ie),
    ("germany", GoverningLaw::De),
    ("german", GoverningLaw::De),
    ("france", GoverningLaw::Fr),
    ("french", GoverningLaw::Fr),
    ("luxembourg", GoverningLaw::Lu),
    ("japan", GoverningLaw::Jp),
    ("belgium", GoverningLaw::Be),
    ("belgian", GoverningLaw::Be),
    ("ontario", GoverningLaw::Caon),
    ("alberta", GoverningLaw::Caab),
    ("british columbia", GoverningLaw::Cabc),
    ("manitoba", GoverningLaw::Camn),
    ("quebec", GoverningLaw::Caqc),
    ("alabama", GoverningLaw::Usal),
    ("alaska", GoverningLaw::Usak),
    ("arizona", GoverningLaw::Usaz),
    ("arkansas", GoverningLaw::Usar),
    ("california", GoverningLaw::Usca),
    ("colorado", GoverningLaw::Usco),
    ("connecticut", GoverningLaw::Usct),
    ("delaware", GoverningLaw::Usde),
    ("district of columbia", GoverningLaw::Usdc),
    ("florida", GoverningLaw::Usfl),
    ("georgia", GoverningLaw::Usga),
    ("hawaii", GoverningLaw::Ushi),
    ("idaho", GoverningLaw::Usid),
    ("illinois", GoverningLaw::Usil),
    ("indiana", GoverningLaw::Usin),
    ("iowa", GoverningLaw::Usia),
    ("kansas", GoverningLaw::Usks),
    ("kentucky", GoverningLaw::Usky),
    ("louisiana", GoverningLaw::Usla),
    ("maine", GoverningLaw::Usme),
    ("maryland", GoverningLaw::Usmd),
    ("massachusetts", GoverningLaw::Usma),
    ("michigan", GoverningLaw::Usmi),
    ("minnesota", GoverningLaw::Usmn),
    ("mississippi", GoverningLaw::Usms),
    ("missouri", GoverningLaw::Usmo),
    ("montana", GoverningLaw::Usmt),
    ("nebraska", GoverningLaw::Usne),
    ("nevada", GoverningLaw::Usnv),
    ("new hampshire", GoverningLaw::Usnh),
    ("new jersey", GoverningLaw::Usnj),
    ("new mexico", GoverningLaw::Usnm),
    ("new york", GoverningLaw::Usny),
    ("north carolina", GoverningLaw::Usnc),
    ("north dakota", GoverningLaw::Usnd),
    ("ohio", GoverningLaw::Usoh),
    ("oklahoma", GoverningLaw::Usok),
    ("oregon", GoverningLaw::Usor),
    ("pennsylvania", GoverningLaw::Uspa),
    ("rhode island", GoverningLaw::Usri),
    ("south carolina", GoverningLaw::Ussc),
    ("south dakota", GoverningLaw::Ussd),
    ("tennessee", GoverningLaw::Ustn),
    ("texas", GoverningLaw::Ustx),
    ("utah", GoverningLaw::Usut),
    ("vermont", GoverningLaw::Usvt),
    ("virginia", GoverningLaw::Usva),
    ("washington", GoverningLaw::Uswa),
    ("west virginia", GoverningLaw::Uswv),
    ("wisconsin", GoverningLaw::Uswi),
    ("wyoming", GoverningLaw::Uswy),
    ("australia", GoverningLaw::Au),
    ("austria", GoverningLaw::At),
    ("bermuda", GoverningLaw::Bm),
    ("brazil", GoverningLaw::Br),
    ("the british virgin islands", GoverningLaw::Vg),
    ("british virgin islands", GoverningLaw::Vg),
    ("the cayman islands", GoverningLaw::Ky),
    ("cayman islands", GoverningLaw::Ky),
    ("china", GoverningLaw::Cn),
    ("denmark", GoverningLaw::Dk),
    ("finland", GoverningLaw::Fi),
    ("hong kong", GoverningLaw::Hk),
    ("india", GoverningLaw::In),
    ("italy", GoverningLaw::It),
    ("mexico", GoverningLaw::Mx),
    ("the netherlands", GoverningLaw::Nl),
    ("netherlands", GoverningLaw::Nl),
    ("new zealand", GoverningLaw::Nz),
    ("norway", GoverningLaw::No),
    ("singapore", GoverningLaw::Sg),
    ("south africa", GoverningLaw::Za),
    ("spain", GoverningLaw::Es),
    ("sweden", GoverningLaw::Se),
    ("switzerland", GoverningLaw::Ch),
];

/// The code for a stated jurisdiction and how many bytes of `stated` name it.
pub(crate) fn jurisdiction(stated: &str) -> Option<(GoverningLaw, usize)> {
    let lower: String = stated.to_ascii_lowercase();
    let words = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    let (name, law) = JURISDICTIONS.iter().find(|(name, _)| {
        words.starts_with(name) && words.as_bytes().get(name.len()).is_none_or(|b| !b.is_ascii_alphabetic())
    })?;
    // The stated text may space the words differently; count the bytes of as many words.
    let word_count = name.split(' ').count();
    let mut end = 0;
    for (i, word) in stated.split_whitespace().take(word_count).enumerate() {
        let from = if i == 0 { 0 } else { end };
        let position = stated.get(from..)?.find(word)? + from;
        end = position + word.len();
    }
    Some((*law, end))
}

/// What a governing-law clause governs, read from the sentence before it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Governs {
    /// "This Agreement", "THIS AMENDMENT NO. 3", "hereunder": this document.
    ThisDocument,
    /// A note, guaranty, assignment, security document, QFC or ISDA language, "such jurisdiction".
    OtherInstrument,
    /// The sentence does not say.
    Unstated,
}

static THIS_DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:this[ \t\r\n]+(?:[a-z0-9.,’']+[ \t\r\n]+){0,6}?(?:agreement|amendment|waiver|supplement|consent)\b|hereunder|hereof)",
    )
});

/// "this Note", "this Convertible Promissory Note": the note a clause names as itself.
static THIS_NOTE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\bthis[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,3}?note\b"));

/// A preamble that names the document a note: "THIS SECURED PROMISSORY NOTE is made …", "…
/// (this “Note”)". Not "(the “Note”)": a loan agreement so names the note that evidences its loan.
static NAMES_ITSELF_A_NOTE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)(?:\A[ \t\r\n]*this[ \t\r\n]+(?:[a-z]+[ \t\r\n]+){0,3}?note[ \t\r\n]*(?:\(|,|(?:is|dated|made)\b)|\(this[ \t\r\n]+["“](?:[a-z]+[ \t\r\n]+){0,3}?note["”]\))"#,
    )
});

/// How far into the preamble a note names itself.
const NOTE_NAME_REACH: usize = 400;

/// Whether the document's preamble names the document itself a note.
fn names_itself_a_note(doc: &Document<'_>) -> bool {
    doc.parts.preamble.as_ref().is_some_and(|preamble| {
        let end = super::text::floor_boundary(doc.text, preamble.start + NOTE_NAME_REACH).min(preamble.end);
        NAMES_ITSELF_A_NOTE.is_match(doc.slice(preamble.start..end.max(preamble.start)))
    })
}

/// Where a proviso or a clause after a semicolon starts within a sentence.
static PROVISO: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)(?:;|\bprovided(?:,?[ \t\r\n]+however,?)?[ \t\r\n]+that\b|\bexcept[ \t\r\n]+that\b)")
});

const OTHER_INSTRUMENTS: &[&str] = &[
    "note",
    "guarant",
    "assignment",
    "security",
    "collateral",
    "mortgage",
    "pledge",
    "letter of credit",
    "isda",
    "qfc",
    "swap",
    "hedg",
    "intercreditor",
    "fee letter",
    "uniform customs",
    "ucp",
    "isp98",
    "such jurisdiction",
    "control agreement",
    "subordination",
    "deposit account",
    "existing credit agreement",
];

/// What the words before a governing-law clause say it governs: the instrument named first is
/// the subject ("This Agreement and the Notes shall be …" governs this document; "The Guaranty
/// delivered hereunder shall be …" governs the guaranty, whatever "hereunder" refers to).
fn governs(doc: &Document<'_>, clause_start: usize) -> Governs {
    let sentence = sentence_around(doc.text, clause_start);
    let lead = doc.slice(sentence.start..clause_start);
    // A proviso has its own subject: in "This Agreement shall be governed by New York law;
    // provided that the perfection of any security interest shall be governed by …", the second
    // clause governs the security interest, not this Agreement.
    let lead = PROVISO.find_iter(lead).last().map_or(lead, |proviso| &lead[proviso.end()..]);
    let mut lower = lead.to_ascii_lowercase();
    let mut this = THIS_DOCUMENT.find(lead).map(|found| found.start());
    if names_itself_a_note(doc) {
        // In a note that calls itself "this Note", the note is this document, not another one.
        for found in THIS_NOTE.find_iter(lead) {
            this = Some(this.map_or(found.start(), |at| at.min(found.start())));
            lower.replace_range(found.range(), &" ".repeat(found.len()));
        }
    }
    let other = OTHER_INSTRUMENTS.iter().filter_map(|word| lower.find(word)).min();
    match (this, other) {
        (Some(this), Some(other)) if other < this => Governs::OtherInstrument,
        (Some(_), _) => Governs::ThisDocument,
        (None, Some(_)) => Governs::OtherInstrument,
        (None, None) => Governs::Unstated,
    }
}

/// What a governing-law clause governs: said before it ("This Agreement shall be governed by …"),
/// or after it when the law is named first ("The laws of the State of Texas shall govern the
/// Mortgage").
fn clause_governs(doc: &Document<'_>, captures: &regex::Captures<'_>) -> Governs {
    let Some(whole) = captures.get(0) else { return Governs::Unstated };
    if captures.name("place_first").is_none() && captures.name("adjective_first").is_none() {
        return governs(doc, whole.start());
    }
    let sentence = sentence_around(doc.text, whole.start());
    let tail = doc.slice(whole.end()..sentence.end.max(whole.end()));
    if contains_any_ci(tail, OTHER_INSTRUMENTS) {
        Governs::OtherInstrument
    } else if THIS_DOCUMENT.is_match(tail) {
        Governs::ThisDocument
    } else {
        Governs::Unstated
    }
}

/// Words that choose a law: "governed by", "construed in accordance with", "subject to the laws of".
static CHOOSES_LAW: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:govern\w*|constru\w*|interpret\w*|subject[ \t\r\n]+to|laws?[ \t\r\n]+of)\b"));

/// Whether `span` lies in a sentence that chooses the law of this document: in the document's own
/// text (not an attachment), with words that choose a law, and not stated for a note, guaranty,
/// assignment form or other instrument; or in a `Governing Law:` label. Proposals from outside the
/// rules are held to this (see `proposals.rs`).
pub(crate) fn states_own_governing_law(doc: &Document<'_>, span: Range<usize>) -> bool {
    if doc
        .structure
        .labels_where(|name| name == "governing law")
        .any(|label| label.value.start <= span.start && span.end <= label.value.end)
    {
        return true;
    }
    if doc.parts.preamble.is_some() && !doc.parts.in_body(span.start) {
        return false;
    }
    let sentence = sentence_around(doc.text, span.start);
    CHOOSES_LAW.is_match(doc.slice(sentence)) && governs(doc, span.start) != Governs::OtherInstrument
}

/// The governing law: every "governed by … law(s) of …" clause and any `Governing Law:` label.
/// With a preamble, only clauses in the document's own text count (not those of attached
/// exhibits or a conformed copy), and the clause that governs this document ("This Agreement
/// shall be governed by …") wins over clauses of notes, guaranties, assignment forms or security
/// documents. An amendment that states no law of its own but incorporates the amended agreement's
/// choice-of-law provision takes the law of the attached conformed copy. Clauses naming different
/// laws are a conflict; a law with no CDM code is reported and dropped.
pub(crate) fn governing_law(doc: &Document<'_>, report: &mut Report) -> Option<Sourced<GoverningLaw>> {
    let field = "/legalAgreementIdentification/governingLaw";
    let mut candidates = Vec::new();
    let mut own = Vec::new();
    let mut attached = Vec::new();
    let structured = doc.parts.preamble.is_some();
    for captures in GOVERNED_BY.captures_iter(doc.text) {
        if structured && let Some(whole) = captures.get(0) {
            if !doc.parts.in_body(whole.start()) {
                if clause_governs(doc, &captures) != Governs::OtherInstrument
                    && let Some((law, range)) = law_of(&captures)
                {
                    attached.extend(doc.sourced(range, law));
                }
                continue;
            }
            match clause_governs(doc, &captures) {
                Governs::OtherInstrument => continue,
                Governs::ThisDocument => {
                    if let Some((law, range)) = law_of(&captures) {
                        own.extend(doc.sourced(range, law));
                    }
                }
                Governs::Unstated => {}
            }
        }
        let (Some(whole), Some((named, adjective))) = (captures.get(0), named_place(&captures)) else {
            continue;
        };
        match jurisdiction(named.as_str()) {
            Some((law, length)) => {
                let end = if adjective { whole.end() } else { named.start() + length };
                candidates.extend(doc.sourced(whole.start()..end, law));
            }
            None => {
                let place = trim_range(doc.text, named.range());
                report.dropped(
                    field,
                    doc.slice(whole.start()..place.end),
                    whole.start()..place.end,
                    "names a law with no CDM GoverningLawEnum code",
                );
            }
        }
    }
    for label in doc.structure.labels_where(|name| name == "governing law") {
        let value = doc.slice(label.value.clone());
        let stated = value.trim_start_matches(|c: char| !c.is_ascii_alphabetic());
        let offset = label.value.start + (value.len() - stated.len());
        let stated_place = stated
            .strip_prefix("The laws of ")
            .or_else(|| stated.strip_prefix("the laws of "))
            .or_else(|| stated.strip_prefix("The law of "))
            .or_else(|| stated.strip_prefix("the law of "))
            .unwrap_or(stated);
        let stated_place = stated_place
            .strip_prefix("the State of ")
            .or_else(|| stated_place.strip_prefix("State of "))
            .unwrap_or(stated_place);
        let place_offset = offset + (stated.len() - stated_place.len());
        match jurisdiction(stated_place) {
            Some((law, length)) => candidates.extend(doc.sourced(offset..place_offset + length, law)),
            None => report.dropped(field, value, label.value.clone(), "names a law with no CDM GoverningLawEnum code"),
        }
    }
    if !own.is_empty() {
        return agree(field, own, report);
    }
    if candidates.is_empty() && structured && incorporates_choice_of_law(doc) {
        // "Section 12 of the Credit Agreement (choice of law) is incorporated herein": the law is
        // the one the attached conformed copy of that agreement states.
        return agree(field, attached, report);
    }
    agree(field, candidates, report)
}

/// "THIS AGREEMENT SHALL BE SUBJECT TO THE PROVISIONS REGARDING CHOICE OF LAW … SET FORTH IN
/// SECTION 12 OF THE CREDIT AGREEMENT, AND SUCH PROVISIONS ARE INCORPORATED HEREIN": an amendment
/// that takes its governing law from the agreement it amends instead of stating one.
static INCORPORATED_CHOICE_OF_LAW: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:choice[ \t\r\n]+of[ \t\r\n]+law|governing[ \t\r\n]+law)\b[^.]{0,300}?\bincorporated[ \t\r\n]+(?:herein|into[ \t\r\n]+this)\b",
    )
});

/// Whether the document's own text incorporates the amended agreement's governing-law provision.
fn incorporates_choice_of_law(doc: &Document<'_>) -> bool {
    INCORPORATED_CHOICE_OF_LAW.is_match(doc.slice(doc.parts.body.clone()))
}

/// The place a governing-law clause names, and whether it is named by an adjective ("English
/// law"), which is quoted to the end of the clause.
fn named_place<'t>(captures: &regex::Captures<'t>) -> Option<(regex::Match<'t>, bool)> {
    captures
        .name("place")
        .or_else(|| captures.name("place_first"))
        .map(|place| (place, false))
        .or_else(|| captures.name("adjective").or_else(|| captures.name("adjective_first")).map(|a| (a, true)))
}

/// The law a governing-law clause names and the range quoted for it.
fn law_of(captures: &regex::Captures<'_>) -> Option<(GoverningLaw, Range<usize>)> {
    let whole = captures.get(0)?;
    let (named, adjective) = named_place(captures)?;
    let (law, length) = jurisdiction(named.as_str())?;
    let end = if adjective { whole.end() } else { named.start() + length };
    Some((law, whole.start()..end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Document<'_> {
        Document::scan(text)
    }

    #[test]
    fn governing_law_maps_to_cdm_codes_and_quotes_the_clause() {
        let text =
            "THIS AGREEMENT SHALL BE GOVERNED BY, AND CONSTRUED IN ACCORDANCE WITH, THE LAW OF THE STATE OF NEW YORK.";
        let doc = scan(text);
        let mut report = Report::default();
        let law = governing_law(&doc, &mut report).expect("law");
        assert_eq!(*law.value(), GoverningLaw::Usny);
        assert!(law.quote().ends_with("STATE OF NEW YORK"), "{}", law.quote());
        let text = "This Agreement and any non-contractual obligations arising out of or in connection with it are governed by English law.";
        let doc = scan(text);
        assert_eq!(governing_law(&doc, &mut report).map(|l| *l.value()), Some(GoverningLaw::Gben));
    }

    fn law_in(text: &str) -> Option<GoverningLaw> {
        governing_law(&scan(text), &mut Report::default()).map(|law| *law.value())
    }

    #[test]
    fn the_other_ways_agreements_word_a_choice_of_law_name_it_too() {
        let cases = [
            (
                "The Loan Agreement shall be governed by and construed in accordance with the internal laws (and not the conflict of laws rules) of the State of Utah.",
                GoverningLaw::Usut,
            ),
            (
                "This Credit Agreement shall be governed by and construed under the laws of the State of Florida.",
                GoverningLaw::Usfl,
            ),
            (
                "This Agreement will be interpreted and enforced in accordance with the laws of the State of Oregon.",
                GoverningLaw::Usor,
            ),
            (
                "This Facility Agreement shall be governed by and interpreted in accordance with the laws of the Province of Alberta and the federal laws of Canada applicable therein.",
                GoverningLaw::Caab,
            ),
            ("THE LAWS OF THE COMMONWEALTH OF MASSACHUSETTS SHALL GOVERN THIS AGREEMENT.", GoverningLaw::Usma),
            ("Illinois law governs this Agreement and every claim arising hereunder.", GoverningLaw::Usil),
        ];
        for (text, law) in cases {
            assert_eq!(law_in(text), Some(law), "{text}");
        }
    }

    #[test]
    fn any_states_law_named_as_an_adjective_is_read_wherever_it_stands() {
        let cases = [
            (
                "Massachusetts law governs the Loan Documents without regard to principles of conflicts of law.",
                GoverningLaw::Usma,
            ),
            ("Each Loan Document shall be governed by Colorado law.", GoverningLaw::Usco),
            ("West Virginia law shall govern this Agreement.", GoverningLaw::Uswv),
        ];
        for (text, law) in cases {
            assert_eq!(law_in(text), Some(law), "{text}");
        }
        let text = "This LOAN AGREEMENT dated as of May 1, 2023 is between ACME INC. and FIRST BANK.\n\nThe Guaranty shall be governed by the laws of the State of Nevada. Oregon law governs this Agreement.\n";
        assert_eq!(law_in(text), Some(GoverningLaw::Usor));
    }

    #[test]
    fn a_choice_of_law_qualified_by_how_or_which_law_still_names_it() {
        let cases = [
            (
                "This Agreement will be governed by federal law applicable to Lender and, to the extent not preempted by federal law, the laws of the State of Kansas without regard to its conflicts of law provisions.",
                GoverningLaw::Usks,
            ),
            (
                "THIS AGREEMENT SHALL BE GOVERNED BY AND CONSTRUED ACCORDING TO THE LAWS OF THE STATE OF IDAHO.",
                GoverningLaw::Usid,
            ),
            ("This Agreement is to be construed pursuant to the laws of the State of Vermont.", GoverningLaw::Usvt),
            ("This Agreement shall be governed exclusively by the laws of the State of Maine.", GoverningLaw::Usme),
            ("This Agreement shall be governed in all respects by the laws of the State of Iowa.", GoverningLaw::Usia),
            (
                "This Agreement is governed by and construed in accordance with the substantive laws of the State of Nebraska.",
                GoverningLaw::Usne,
            ),
            (
                "The laws of the State of Georgia (without giving effect to its conflicts of law rules) shall govern this Agreement.",
                GoverningLaw::Usga,
            ),
        ];
        for (text, law) in cases {
            assert_eq!(law_in(text), Some(law), "{text}");
        }
    }

    #[test]
    fn the_law_named_first_may_be_followed_by_a_qualification_before_it_governs() {
        let text = "The laws of the State of California, without regard to conflicts of law principles, govern this Agreement and the other Loan Documents.";
        assert_eq!(law_in(text), Some(GoverningLaw::Usca));
        let other =
            "The laws of the State of California, without regard to conflicts of law principles, govern each Guaranty.";
        assert_eq!(
            law_in(&format!(
                "This LOAN AGREEMENT dated as of May 1, 2023 is between ACME INC. and FIRST BANK.\n\n{other}\n"
            )),
            None
        );
    }

    #[test]
    fn a_proviso_choosing_another_law_for_the_security_interest_leaves_the_agreements_law() {
        let text = "LOAN AND SECURITY AGREEMENT\n\nTHIS LOAN AND SECURITY AGREEMENT is dated as of May 1, 2023 between ACME INC. (\"Borrower\") and FIRST BANK (\"Bank\").\n\n11. Choice of Law. This Agreement shall be governed by the laws of the State of New York; provided that the perfection of Bank's security interest in Collateral located in Texas shall be governed by the laws of the State of Texas.\n\nACME INC.\n\nBy: ______\n";
        let mut report = Report::default();
        let law = governing_law(&scan(text), &mut report).map(|law| *law.value());
        assert_eq!(law, Some(GoverningLaw::Usny));
        assert!(report.conflicted_fields.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn a_law_named_first_for_another_instrument_is_not_this_agreements() {
        let preamble = "This LOAN AGREEMENT dated as of May 1, 2023 is between ACME INC. and FIRST BANK, N.A.";
        let alone =
            format!("{preamble}\n\nThe laws of the State of Texas shall govern the Mortgage and its enforcement.\n");
        assert_eq!(law_in(&alone), None);
        let text = format!(
            "{preamble}\n\nThe laws of the State of Texas shall govern each Mortgage.\n\nThis Agreement shall be governed by the laws of the State of New York.\n"
        );
        let mut report = Report::default();
        let law = governing_law(&scan(&text), &mut report).map(|law| *law.value());
        assert_eq!(law, Some(GoverningLaw::Usny));
        assert!(report.conflicted_fields.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn the_law_of_an_instrument_delivered_hereunder_is_not_this_agreements() {
        let text = "LOAN AGREEMENT\n\nTHIS LOAN AGREEMENT is made as of May 2, 2023 between OAK CO. (the \"Borrower\") \
            and ELM BANK (the \"Lender\").\n\n8. Guaranty. Any Guaranty delivered hereunder shall be governed by the laws \
            of the State of Florida.\n\n9. Governing Law. This Agreement shall be governed by the laws of the \
            Commonwealth of Massachusetts.\n\nOAK CO.\n\nBy: ______\n";
        assert_eq!(law_in(text), Some(GoverningLaw::Usma));
    }

    #[test]
    fn two_different_governing_laws_are_a_conflict_not_a_choice() {
        let text = "This Agreement is governed by the laws of the State of New York.\n\nThis Agreement is governed by English law.";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(governing_law(&doc, &mut report), None);
        assert_eq!(report.conflicted_fields, ["/legalAgreementIdentification/governingLaw"]);
        assert!(report.warnings[0].contains("New York") && report.warnings[0].contains("English law"));
    }

    #[test]
    fn a_law_without_a_cdm_code_is_reported_and_dropped() {
        let text = "This Agreement shall be governed by the laws of Panama.";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(governing_law(&doc, &mut report), None);
        assert!(report.warnings[0].contains("Panama"), "{:?}", report.warnings);
    }

    #[test]
    fn the_documents_own_governing_law_clause_wins_over_those_of_notes_and_attachments() {
        let text = "This FIRST AMENDMENT dated as of May 1, 2023 is among ACME INC. and FIRST BANK, N.A., as Agent.\n\nSection 9. This Note shall be governed by the laws of the State of New York.\n\nSection 10. THIS AMENDMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF ARIZONA.\n\nIN WITNESS WHEREOF, the parties have signed.\n\nEXHIBIT A\n\nThis Agreement shall be governed by the law of the State of New York.\n";
        let doc = scan(text);
        let mut report = Report::default();
        let law = governing_law(&doc, &mut report).expect("law");
        assert_eq!(*law.value(), GoverningLaw::Usaz);
        assert!(report.conflicted_fields.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn contracts_made_under_a_states_laws_name_that_states_law() {
        let text =
            "This Agreement and the Notes shall be deemed to be contracts made under the laws of the State of Ohio.";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(governing_law(&doc, &mut report).map(|l| *l.value()), Some(GoverningLaw::Usoh));
    }

    #[test]
    fn construed_and_interpreted_clauses_name_their_law() {
        let text = "C. Applicable Law. THIS AMENDMENT NO. 3 SHALL BE GOVERNED BY, AND CONSTRUED AND INTERPRETED IN ACCORDANCE WITH, THE LAW OF THE STATE OF NEW YORK.";
        let doc = scan(text);
        let mut report = Report::default();
        assert_eq!(governing_law(&doc, &mut report).map(|l| *l.value()), Some(GoverningLaw::Usny));
    }

    #[test]
    fn a_clause_governed_and_controlled_by_a_law_or_naming_a_place_wrapped_over_two_lines_is_read() {
        let text = "This Note shall be governed and controlled by the internal laws of the State of Illinois.";
        let mut report = Report::default();
        assert_eq!(governing_law(&scan(text), &mut report).map(|l| *l.value()), Some(GoverningLaw::Usil));
        let text = "(g) THIS AMENDMENT SHALL BE GOVERNED BY, CONSTRUED AND ENFORCED IN ACCORDANCE WITH, THE LAWS OF THE STATE OF NEW\nYORK WITHOUT REGARD TO CONFLICT OF LAWS.";
        let law = governing_law(&scan(text), &mut report).expect("law");
        assert_eq!(*law.value(), GoverningLaw::Usny);
        assert!(law.quote().ends_with("STATE OF NEW\nYORK"), "{}", law.quote());
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn an_amendment_that_incorporates_the_amended_agreements_choice_of_law_takes_the_attached_copys_law() {
        let amendment = "THIRD AMENDMENT TO CREDIT AGREEMENT\n\nThis THIRD AMENDMENT TO CREDIT AGREEMENT (this \"Agreement\") is entered into as of May 2, 2023, by and among ORBIT CO., a Delaware corporation (the \"Borrower\"), and FIRST BANK, N.A., as administrative agent.\n\n7. Choice of Law. The provisions on choice of law set forth in Section 10 of the Credit Agreement are incorporated herein by this reference, mutatis mutandis.\n\nIN WITNESS WHEREOF, the parties have signed.\n\nEXHIBIT A\n\nCONFORMED CREDIT AGREEMENT\n\n10. THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF TEXAS.\n\n11. Each swap shall be governed by the laws of the State of New York.\n";
        let mut report = Report::default();
        let law = governing_law(&scan(amendment), &mut report).map(|l| *l.value());
        assert_eq!(law, Some(GoverningLaw::Ustx));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let silent = amendment.replace("7. Choice of Law. The provisions on choice of law set forth in Section 10 of the Credit Agreement are incorporated herein by this reference, mutatis mutandis.", "7. Counterparts. This Agreement may be signed in counterparts.");
        assert_eq!(governing_law(&scan(&silent), &mut report), None);
    }
    #[test]
    fn a_note_that_names_itself_so_is_governed_by_its_this_note_clause() {
        let law_of = |text: &str| governing_law(&scan(text), &mut Report::default()).map(|l| *l.value());
        let body = " is made as of May 3, 2022 between WREN TOOLS, INC. (the \"Maker\") and CEDAR BANK (the \"Holder\").\n\n\
            1. Payment. The Maker shall pay the principal on May 3, 2025.\n\n\
            9. Law. This Note shall be governed by and construed under the laws of the State of Nevada.\n\n\
            IN WITNESS WHEREOF, the Maker has signed.\n";
        assert_eq!(law_of(&format!("SECURED NOTE\n\nTHIS SECURED NOTE{body}")), Some(GoverningLaw::Usnv));
        assert_eq!(law_of(&format!("SECURED NOTE\n\nThis instrument (this \"Note\"){body}")), Some(GoverningLaw::Usnv));
        // A loan agreement's clause for "this Note" speaks of the note that evidences its loan.
        let agreement = format!("LOAN AGREEMENT\n\nTHIS LOAN AGREEMENT (this \"Agreement\"){body}")
            .replace("1. Payment.", "1. Note. The loan is evidenced by a promissory note (the \"Note\"). Payment.");
        assert_eq!(law_of(&agreement), None);
    }

    #[test]
    fn the_rights_and_liabilities_of_the_parties_determined_under_a_states_laws_name_that_states_law() {
        let text = "This Agreement shall be interpreted, and the rights and liabilities of the parties determined, in \
            accordance with the laws of the State of North Carolina.";
        assert_eq!(governing_law(&scan(text), &mut Report::default()).map(|l| *l.value()), Some(GoverningLaw::Usnc));
    }
}
