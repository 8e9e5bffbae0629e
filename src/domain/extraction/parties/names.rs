//! The names of legal entities: a capitalised name ending in a legal form ("Inc.", "N.A.", "PLC")
//! or a bank's name, in running text or wrapped over the lines of a preamble; and the role and
//! class words ("Issuing Bank", "Each Bank") that are no one's name.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::extraction::text::pattern;

const LEGAL_FORM: &str = r"Inc\.|Inc\b|INC\.|INC\b|Incorporated\b|INCORPORATED\b|L\.L\.C\.|LLC\b|ULC\b|Corp\.|Corp\b|CORP\.|CORP\b|Corporation\b|CORPORATION\b|Company\b|COMPANY\b|Co\.|CO\.|Ltd\.|Ltd\b|LTD\.|LTD\b|Limited\b|LIMITED\b|PLC\b|[Pp]lc\b|p\.l\.c\.|N\.A\.|National[ \t]*\r?\n?[ \t]*Association\b|NATIONAL[ \t]*\r?\n?[ \t]*ASSOCIATION\b|L\.P\.|LP\b|LLP\b|L\.L\.P\.|AG\b|S\.A\.|SA\b|SE\b|S\.A\.S\.|SAS\b|B\.V\.|BV\b|N\.V\.|NV\b|GmbH\b|GMBH\b|S\.à[ \t]?r\.l\.|S\.p\.A\.|SpA\b|AB\b|ASA\b|A/S\b|Oyj\b|K\.K\.|Pty[ \t]+Ltd\.?";
const CAPITALISED: &str = r"(?:[\p{Lu}0-9][\p{L}0-9&'’.\-]*|\([\p{Lu}][\p{L}.]{1,12}\))";
/// "Morgan Guaranty Trust Company of New York": a place after "Company".
const COMPANY_OF_PLACE: &str =
    r"(?:Company|COMPANY)[ \t]+(?:of|OF)[ \t\r\n]+[\p{Lu}][\p{L}]+(?:[ \t\r\n]+(?:York|YORK|Jersey|JERSEY))?";
/// Before a legal form a wrapped line may break the name: "CITIBANK,\nN.A.".
const TO_LEGAL: &str = r",?(?:[ \t]+|[ \t]*\r?\n[ \t]*)";

/// "EXELON GENERATION COMPANY, LLC", "UBS AG, Stamford Branch": a second legal form, or the branch
/// through which a bank acts, completes a name. A line may break before "Branch" ("…, NEW YORK /
/// BRANCH"): the word alone on a line ends the name above it.
const COMPLETION: &str = r"(?:,?[ \t]+(?:LLC\b|L\.L\.C\.|L\.P\.|LP\b|LLP\b|Inc\.|INC\.)|,?[ \t]+(?:[\p{Lu}][\p{L}]+[ \t]+){0,2}[\p{Lu}][\p{L}]+(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:Branch|BRANCH)\b)?";

/// The pattern of a legal entity's name whose words are separated by `space`.
/// A legal form opening a line: the end of a name wrapped from the line above ("PNC CAPITAL
/// MARKETS / LLC and …").
pub(crate) static LEGAL_FORM_FIRST: LazyLock<Regex> =
    LazyLock::new(|| pattern(&format!(r"^(?:{LEGAL_FORM})(?:[ ,]|$)")));

fn name_pattern(space: &str) -> String {
    let connector = format!(r"{space}(?:(?:of|OF|de|du|des|la|le|del|der|van|von|the|THE|&){space})?");
    // "PIEDMONT BANK & TRUST COMPANY", "… BANK AND TRUST COMPANY OF CHICAGO": a bank and trust
    // company is one name, not a bank followed by words that end nowhere (the legal form after a
    // bank's name completes it). "BANK OF" may end a line, its place on the next ("… BANK OF /
    // NEW ENGLAND").
    let bank = format!(
        r"(?:Bank|BANK)\b(?:[ \t]+(?:of|OF)(?:(?:[ \t]+|[ \t]*\r?\n[ \t]*){CAPITALISED}){{1,3}}|[ \t]+USA\b|[ \t]+(?:&|and|AND)[ \t]+(?:Trust|TRUST)\b)?"
    );
    let legal = format!(r"{COMPANY_OF_PLACE}|{LEGAL_FORM}");
    // "RBC CAPITAL MARKETS": the name a bank's investment-banking arm arranges under, complete
    // without a legal form (one that has it, "KEYBANC CAPITAL MARKETS, LLC", keeps it).
    let capital_markets = format!(r"(?:Capital|CAPITAL){space}(?:Markets|MARKETS)\b");
    format!(
        r"\b(?:(?:The|THE)[ \t]+)?(?:{CAPITALISED}(?:{connector}{CAPITALISED}){{0,7}}?(?:{TO_LEGAL}(?:{legal})|{space}{bank}(?:{TO_LEGAL}(?:{legal}))?|{space}{capital_markets}(?:{TO_LEGAL}(?:{legal}))?)|{bank}(?:{TO_LEGAL}(?:{legal}))?){COMPLETION}"
    )
}

pub(crate) static NAME: LazyLock<Regex> = LazyLock::new(|| pattern(&name_pattern(r"[ \t]+")));

/// A name in a preamble, where prose wraps: a single line break may fall between its words.
pub(crate) static PREAMBLE_NAME: LazyLock<Regex> =
    LazyLock::new(|| pattern(&name_pattern(r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)")));

/// An upper-case name followed by its description as an entity: "AMERCO, a Nevada corporation",
/// "PHILLIPS 66, a Delaware corporation", "EPR PROPERTIES, a Maryland real estate investment trust". Only upper-case names: a title-case phrase before "a
/// Delaware corporation" is too often a role ("the Borrower").
static DESCRIBED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?P<name>\b[\p{Lu}][\p{Lu}0-9&.'’\-]*(?:[ \t]+[\p{Lu}0-9][\p{Lu}0-9&.'’\-]*){0,4}),[ \t\r\n]+an?[ \t\r\n]+(?:[\p{Lu}][\p{L}]+[ \t\r\n]+){1,3}(?:corporation|limited[ \t\r\n]+liability[ \t\r\n]+company|limited[ \t\r\n]+partnership|general[ \t\r\n]+partnership|company|business[ \t\r\n]+trust|statutory[ \t\r\n]+trust|real[ \t\r\n]+estate[ \t\r\n]+investment[ \t\r\n]+trust|banking[ \t\r\n]+corporation)\b",
    )
});

/// The names in `text` that have no legal form but are described as an entity right after.
pub(crate) fn described_names(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    DESCRIBED_NAME.captures_iter(text).filter_map(|c| c.name("name")).map(|name| name.range())
}

/// Words that describe a capacity or a class rather than name anyone: "Issuing Bank", "Agent Bank",
/// "Each Bank" and "Capital Corporation" cut from "AT&T Capital Corporation" are not names.
const ROLE_WORDS: &[&str] = &[
    "each",
    "the",
    "any",
    "such",
    "other",
    "all",
    "agent",
    "agents",
    "issuing",
    "lender",
    "lenders",
    "bank",
    "banks",
    "swing",
    "swingline",
    "line",
    "administrative",
    "collateral",
    "syndication",
    "documentation",
    "lc",
    "issuer",
    "borrower",
    "borrowers",
    "guarantor",
    "guarantors",
    "parent",
    "company",
    "relevant",
    "applicable",
    "existing",
    "new",
    "initial",
    "original",
    "fronting",
    "depositary",
    "paying",
    "arranger",
    "lead",
    "trustee",
    "secretary",
    "holdings",
    "holding",
    "capital",
    "closing",
    "date",
    "effective",
    "national",
    "association",
    "trust",
    "savings",
    "finance",
    "financial",
    "institution",
    "participant",
    "assignee",
    "assignor",
    "purchaser",
    "seller",
    "servicer",
    "corporation",
    "inc",
    "incorporated",
    "llc",
    "ltd",
    "limited",
    "plc",
    "co",
    "corp",
    "n",
    "a",
    "l",
    "p",
    "c",
    "of",
    "and",
    "agreement",
    "credit",
    "loan",
    "subsidiary",
    "canadian",
    "foreign",
];

/// Whether a stated name is only role and class words ("Issuing Bank", "Each Bank").
pub(crate) fn is_role_word_name(name: &str) -> bool {
    // "A DIVISION OF MERRILL LYNCH …" is the tail of a longer name, not a name.
    let first = name.split_whitespace().next().unwrap_or("");
    if first.eq_ignore_ascii_case("a") || first.eq_ignore_ascii_case("an") {
        return true;
    }
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| ROLE_WORDS.iter().any(|r| r.eq_ignore_ascii_case(w)))
}

/// Words that join names or describe a class of parties rather than continue a name; "THE"
/// before "BANK OF NEW YORK MELLON" is the same name.
pub(crate) const STOP_WORDS: &[&str] = &[
    "among", "between", "and", "by", "to", "with", "of", "or", "for", "from", "the", "party", "parties", "hereto",
    "herein", "listed",
];

/// Titles of signatories, printed beside names in signature blocks ("Chief Financial Officer").
const SIGNATORY_WORDS: &[&str] = &[
    "officer",
    "president",
    "treasurer",
    "secretary",
    "director",
    "manager",
    "counsel",
    "signatory",
    "partner",
    "member",
    "chairman",
    "ceo",
    "cfo",
    "coo",
    "svp",
    "evp",
    "vp",
];

/// Whether `word` can continue a name cut at a line or page break — the one test shared by the
/// reader that rejoins wrapped names (`parties.rs`) and the check that a stated name is whole
/// (`evidence/names.rs`): capitalised, letters and digits (with `&`, `-`, `'`) or an initialism
/// ("U.S."), and not a stop word, a role or class word, or a signatory's title.
pub(crate) fn continues_a_name(word: &str) -> bool {
    let initialism = word.len() >= 4
        && word.ends_with('.')
        && word.split_terminator('.').all(|part| part.len() == 1 && part.chars().all(|c| c.is_ascii_uppercase()));
    word.chars().next().is_some_and(|c| c.is_alphabetic() && c.is_uppercase())
        && (initialism || word.chars().all(|c| c.is_alphanumeric() || matches!(c, '&' | '-' | '\'' | '’')))
        && !STOP_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
        && !SIGNATORY_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
        && !is_role_word_name(word)
}

/// A name as a comparison key: upper-case letters and digits only.
pub(crate) fn name_key(name: &str) -> String {
    name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_uppercase).collect()
}

/// Words that mark a name as a lending institution's: a bank ("… BANK, N.A.", "NATIONSBANK",
/// "Banco …"), a trust or savings company, a credit, finance or investment firm, a fund, an
/// insurer, or a bank's branch.
static LENDING_INSTITUTION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)bank|\bbanc|\bbanque\b|\bN\.A\.|\bnational[ \t\r\n]+association\b|\btrust\b|\bsavings\b|\bcredit|\bcapital\b|\bfinanc|\bfunding\b|\blending\b|\bloans?\b|\bsecurities\b|\binvest|\bfunds?\b|\bCLO\b|\bpartners\b|\bbranch\b|\binsurance\b|\bassurance\b|\blife\b|\bmutual\b|\bfederal\b|\bFSB\b|\bAG\b|\bplc\b|\bS\.A\.|\bN\.V\.|\bassets?\b|\bmanagement\b|\badvisors\b",
    )
});

/// Whether `name` reads as a lending institution's rather than an operating company's
/// ("PRAIRIE STATE BANK", "Harbor Credit Fund LP", not "NORTHWIND EQUITY LLC").
pub(crate) fn reads_as_lending_institution(name: &str) -> bool {
    LENDING_INSTITUTION.is_match(name)
}
