//! Who the person is: their name plus what the request says about them (company, role, location),
//! and the rule that keeps evidence about a namesake out of the summary and the character
//! assessment.
//!
//! # The identity asked about
//!
//! A request may give `company`, `role` and `location` ([`PersonIdentity::new`], each at most
//! [`MAX_IDENTITY_FIELD_CHARS`]). Its free-text `context` is read best-effort for the same three
//! ([`PersonIdentity::from_context`]: "CFO of Widget Ltd", "Acme Corp, London", "partner at Smith &
//! Co in Boston"); a structured field wins over what is read from the context.
//!
//! # What a source says about whom
//!
//! Sources are read sentence by sentence. A sentence *mentions* the person when it names them (the
//! matching rules of [`super::character`]) or starts with "He", "She" or "They" right after one that
//! did. From the words right around the name (the `describe` module: "Jane Doe, CFO of Acme Corp", "Ohio
//! State history professor Jane Doe", "Jane Doe, 52, of Columbus, Ohio", "Jane Doe joined Widget
//! Ltd", "Jane Doe (CFO, Acme Corp)") a mention is tied to a company, a role, a location, or an
//! affiliation (a name that may be either an employer or a place: "Boston attorney Jane Doe").
//!
//! A mention is compared with the identity asked about:
//!
//! - **fits** when it names the same company (case, punctuation and corporate suffixes aside; "Acme"
//!   fits "Acme Corp"), or, with no contradiction, the same role ("chief financial officer" is
//!   "CFO") or location ("Boston" fits "Boston, Massachusetts");
//! - **conflicts** when, without naming the same company, it names another company, an affiliation
//!   that is neither the company nor the location asked about, a role of another field (a
//!   professor, a surgeon, a singer are not a CFO; roles within business — CEO, CFO, director,
//!   founder — do not contradict each other, people change jobs), or another location;
//! - says **nothing** either way otherwise ("Jane Doe was convicted of fraud").
//!
//! A source with a fitting mention is kept, except its mentions that conflict on their own (with
//! the pronoun sentences that continue them): "Jane Doe, CFO of Acme Corp, … A different Jane Doe, a
//! professor at Ohio State, was convicted" keeps the first and sets the second aside. A source with
//! a conflicting mention and no fitting one is set aside whole. A source that says nothing either
//! way is kept: the caller gave what distinguishes the person, and nothing here contradicts it.
//!
//! Set-aside evidence feeds neither the summary, nor the person's own words, nor the character
//! assessment; it is listed (`identity.set_aside`: source, quote, reason) for the reviewer.
//!
//! # Several people of that name
//!
//! The mentions kept are grouped into *candidates*: a mention joins the first candidate it fits,
//! else one it does not contradict, else starts a new one. Two or more candidates mean the sources
//! describe different people of that name (no identity given, or one too thin to tell them apart:
//! a role shared by two companies' CFOs): the status is `ambiguous`, nothing is assessed or
//! summarised from the mixed evidence, and the message asks which one is meant.
//!
//! | status | when |
//! |---|---|
//! | `ambiguous` | the kept mentions describe two or more different people |
//! | `not_found` | no kept source mentions the person |
//! | `matched` | company, role or location given, and kept sources mention the person |
//! | `name_only` | nothing given, and the sources describe at most one person of that name |
//!
//! # Why this direction
//!
//! A wrong merge (a namesake's fraud conviction attributed to the borrower) is worse than a withheld
//! fact, so a career move can be set aside too ("Jane Doe, former CFO of Widget Ltd" when asked
//! about Acme Corp's CFO) and two employers in the sources read as two people. Both are listed with
//! the reason, for a person to decide.
//!
//! # Known limits
//!
//! Pattern reading: descriptions further from the name ("… said Jane Doe, who has run the Acme
//! finance team since 2019") are not read; place names are recognised from a short list (a town
//! not on it, before a role, is an affiliation); acronyms are not expanded ("IBM" does not fit
//! "International Business Machines"); a location in another's words ("London" vs "England") reads
//! as a conflict.

mod describe;

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use self::describe::{Description, LEGAL_FORMS, describe_context, describe_mention, words};
use super::character::{PersonMatcher, sentences};
use super::text::{compile, cut};

/// Longest company, role or location accepted, in characters.
pub const MAX_IDENTITY_FIELD_CHARS: usize = 120;
/// A set-aside quote longer than this is cut at a word.
const MAX_QUOTE_CHARS: usize = 600;

/// A company, role or location that cannot be accepted; `field` names it.
#[derive(Debug, thiserror::Error)]
#[error("{field}: {message}")]
pub struct IdentityFieldError {
    pub field: &'static str,
    pub message: String,
}

/// What tells the person apart from namesakes, besides the name: the company, role and location
/// given (or read from the context). All optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PersonIdentity {
    company: Option<String>,
    role: Option<String>,
    location: Option<String>,
}

impl PersonIdentity {
    /// # Errors
    /// [`IdentityFieldError`] naming `company`, `role` or `location` when it is longer than
    /// [`MAX_IDENTITY_FIELD_CHARS`] or holds control characters. Blank counts as absent.
    pub fn new(company: Option<&str>, role: Option<&str>, location: Option<&str>) -> Result<Self, IdentityFieldError> {
        Ok(Self {
            company: field("company", company)?,
            role: field("role", role)?,
            location: field("location", location)?,
        })
    }

    /// What a free-text context says (best-effort; see the module documentation).
    pub fn from_context(context: &str) -> Self {
        let read = describe_context(context);
        let bounded = |value: Option<String>| {
            value.filter(|v| !v.is_empty()).map(|v| v.chars().take(MAX_IDENTITY_FIELD_CHARS).collect())
        };
        Self {
            company: bounded(read.company.or(read.affiliation)),
            role: bounded(read.role),
            location: bounded(read.location),
        }
    }

    /// Each field from `self`, else from `fallback`: the structured fields win over the context's.
    #[must_use]
    pub fn or(self, fallback: Self) -> Self {
        Self {
            company: self.company.or(fallback.company),
            role: self.role.or(fallback.role),
            location: self.location.or(fallback.location),
        }
    }

    pub fn company(&self) -> Option<&str> {
        self.company.as_deref()
    }

    pub fn role(&self) -> Option<&str> {
        self.role.as_deref()
    }

    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }

    pub fn is_empty(&self) -> bool {
        self.company.is_none() && self.role.is_none() && self.location.is_none()
    }

    /// `{company, role, location}`, absent ones `null`.
    pub fn to_json(&self) -> Value {
        json!({ "company": self.company, "role": self.role, "location": self.location })
    }

    /// "CFO at Acme Corp in London", "professor", "in Boston".
    pub fn in_words(&self) -> String {
        let mut text = self.role.clone().unwrap_or_default();
        if let Some(company) = &self.company {
            text = if text.is_empty() { company.clone() } else { format!("{text} at {company}") };
        }
        if let Some(location) = &self.location {
            text = if text.is_empty() { format!("in {location}") } else { format!("{text} in {location}") };
        }
        text
    }

    fn from_description(description: &Description) -> Self {
        Self {
            company: description.company.clone().or_else(|| description.affiliation.clone()),
            role: description.role.clone(),
            location: description.location.clone(),
        }
    }

    fn fill_from(&mut self, description: &Description) {
        let other = Self::from_description(description);
        self.company = self.company.take().or(other.company);
        self.role = self.role.take().or(other.role);
        self.location = self.location.take().or(other.location);
    }
}

fn field(name: &'static str, value: Option<&str>) -> Result<Option<String>, IdentityFieldError> {
    let Some(value) = value.map(|v| v.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    if value.chars().count() > MAX_IDENTITY_FIELD_CHARS {
        let message = format!("must be at most {MAX_IDENTITY_FIELD_CHARS} characters");
        return Err(IdentityFieldError { field: name, message });
    }
    if value.chars().any(char::is_control) {
        return Err(IdentityFieldError { field: name, message: "must not contain control characters".to_owned() });
    }
    Ok(Some(value))
}

// ---- comparing ---------------------------------------------------------------------------------

fn company_words(name: &str) -> Vec<String> {
    // Neither an article nor a legal form tells two companies apart.
    words(name).into_iter().filter(|w| w != "the" && !LEGAL_FORMS.contains(&w.as_str())).collect()
}

/// The same company: equal words once suffixes are dropped, or one name the start of the other
/// ("Acme" and "Acme Corp"; "Ohio State" and "Ohio State University").
fn same_company(a: &str, b: &str) -> bool {
    let (a, b) = (company_words(a), company_words(b));
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    !short.is_empty() && long.starts_with(short)
}

const PLACE_ALIASES: &[(&str, &str)] = &[
    ("nyc", "new york"),
    ("la", "los angeles"),
    ("sf", "san francisco"),
    ("u.s", "united states"),
    ("usa", "united states"),
    ("us", "united states"),
    ("uk", "united kingdom"),
    ("britain", "united kingdom"),
    ("great britain", "united kingdom"),
];

fn place_words(name: &str) -> BTreeSet<String> {
    let joined = words(name).join(" ");
    let joined =
        PLACE_ALIASES.iter().find(|(alias, _)| *alias == joined).map_or(joined, |(_, full)| (*full).to_owned());
    joined.split_whitespace().map(str::to_owned).collect()
}

/// The same place: one's words all in the other's ("Boston" and "Boston, Massachusetts").
fn same_place(a: &str, b: &str) -> bool {
    let (a, b) = (place_words(a), place_words(b));
    !a.is_empty() && !b.is_empty() && (a.is_subset(&b) || b.is_subset(&a))
}

/// What a role is, for comparing: synonyms to one word, then the field it belongs to.
fn canonical_role(role: &str) -> String {
    let role = role.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ").replace('-', " ");
    let canonical = match role.as_str() {
        "chief financial officer"
        | "chief financial"
        | "finance chief"
        | "finance director"
        | "financial director"
        | "director of finance"
        | "head of finance" => "cfo",
        "chief executive officer" | "chief executive" | "managing director" => "ceo",
        "chief operating officer" | "chief operating" => "coo",
        "chief technology officer" | "chief technology" => "cto",
        "chief information officer" | "chief information" => "cio",
        "chairman"
        | "chairwoman"
        | "chairperson"
        | "executive chair"
        | "executive chairman"
        | "executive chairwoman" => "chair",
        "vice president" => "vp",
        "co founder" | "cofounder" => "founder",
        "attorney" | "solicitor" | "barrister" => "lawyer",
        "physician" => "doctor",
        "actress" => "actor",
        "businesswoman" | "businessman" => "businessperson",
        "congresswoman" => "congressman",
        other => other,
    };
    canonical.to_owned()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// Compatible with any other: founder, owner, director, partner, manager, consultant, …
    Generic,
    Business,
    Legal,
    Academic,
    Medical,
    Engineering,
    Arts,
    Sports,
    Politics,
    Religion,
    Farming,
    Property,
}

fn role_field(canonical: &str) -> Field {
    match canonical {
        "lawyer" | "judge" | "prosecutor" => Field::Legal,
        "professor" | "lecturer" | "teacher" | "historian" | "researcher" | "scientist" | "dean" | "student" => {
            Field::Academic
        }
        "doctor" | "surgeon" | "nurse" | "dentist" | "pharmacist" => Field::Medical,
        "engineer" | "architect" | "developer" | "programmer" => Field::Engineering,
        "actor" | "singer" | "musician" | "artist" | "author" | "writer" | "novelist" | "poet" | "journalist"
        | "reporter" | "photographer" => Field::Arts,
        "athlete" | "footballer" | "coach" => Field::Sports,
        "senator" | "mayor" | "governor" | "politician" | "congressman" | "councillor" | "councilman" => {
            Field::Politics
        }
        "pastor" | "priest" | "rabbi" => Field::Religion,
        "farmer" => Field::Farming,
        "realtor" => Field::Property,
        "founder" | "owner" | "proprietor" | "executive" | "manager" | "director" | "partner" | "managing partner"
        | "general partner" | "consultant" | "economist" | "general counsel" => Field::Generic,
        other if other.starts_with("head of") => Field::Generic,
        _ => Field::Business,
    }
}

fn roles_compatible(a: &str, b: &str) -> bool {
    let (a, b) = (role_field(&canonical_role(a)), role_field(&canonical_role(b)));
    a == Field::Generic || b == Field::Generic || a == b
}

/// How one mention compares with an identity.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Fits,
    Silent,
    /// What contradicts, in words.
    Conflicts(Vec<String>),
}

fn judge(identity: &PersonIdentity, mention: &Description) -> Verdict {
    if company_fits(identity, mention) {
        return Verdict::Fits;
    }
    let mut conflicts = Vec::new();
    if let Some(company) = identity.company() {
        if let Some(named) = &mention.company {
            conflicts.push(format!("works at {named}, not {company}"));
        }
        if let Some(named) = &mention.affiliation
            && !identity.location().is_some_and(|location| same_place(location, named))
        {
            conflicts.push(format!("is tied to {named}, not {company}"));
        }
    }
    if let (Some(role), Some(named)) = (identity.role(), &mention.role)
        && !roles_compatible(role, named)
    {
        conflicts.push(format!("is a {named}, not a {role}"));
    }
    if let (Some(location), Some(named)) = (identity.location(), &mention.location)
        && !same_place(location, named)
    {
        conflicts.push(format!("is in {named}, not {location}"));
    }
    if !conflicts.is_empty() {
        return Verdict::Conflicts(conflicts);
    }
    let role_fits = identity
        .role()
        .zip(mention.role.as_deref())
        .is_some_and(|(role, named)| canonical_role(role) == canonical_role(named));
    let location_fits = identity.location().is_some_and(|location| {
        [&mention.location, &mention.affiliation].into_iter().flatten().any(|named| same_place(location, named))
    });
    if role_fits || location_fits { Verdict::Fits } else { Verdict::Silent }
}

// ---- sorting the evidence ----------------------------------------------------------------------

/// How the sources matched the person; see the table in the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentityStatus {
    Matched,
    NotFound,
    Ambiguous,
    NameOnly,
}

impl IdentityStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::NotFound => "not_found",
            Self::Ambiguous => "ambiguous",
            Self::NameOnly => "name_only",
        }
    }
}

/// Text about someone else of the same name, kept out of the assessment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetAside {
    /// The source number `n`.
    pub source: usize,
    /// The sentences about that person, verbatim (cut at a word when long).
    pub quote: String,
    /// Why, in words.
    pub reason: String,
    /// What the text ties them to.
    pub described_as: PersonIdentity,
}

/// One of the people of that name the sources describe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub described_as: PersonIdentity,
    /// The source numbers describing them.
    pub sources: BTreeSet<usize>,
}

/// The evidence sorted by whom it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentitySorting {
    pub status: IdentityStatus,
    /// The identity compared against (given fields, else read from the context).
    pub identity: PersonIdentity,
    /// The passages to summarise and assess, `(text, n)`; none when ambiguous.
    pub kept: Vec<(String, usize)>,
    pub set_aside: Vec<SetAside>,
    /// The people of that name the kept mentions describe (those with a description).
    pub candidates: Vec<Candidate>,
    /// Sources with a mention that fits the identity.
    pub fitting_sources: BTreeSet<usize>,
    /// Sources that mention the person (kept or not), and were not set aside whole.
    pub mentioning_sources: BTreeSet<usize>,
}

static CONTINUING_PRONOUN: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*(?:He|She|They)\b"));

/// A mention: a sentence naming the person and the pronoun sentences right after it.
struct Mention {
    /// The source number.
    source: usize,
    /// The passage and its sentences (indices into that passage's sentences).
    passage: usize,
    sentences: std::ops::Range<usize>,
    quote: String,
    description: Description,
}

/// The sentences of each passage (trimmed) and the mentions in them.
fn read_passages(person_name: &str, passages: &[(&str, usize)]) -> (Vec<Vec<String>>, Vec<Mention>) {
    let matcher = PersonMatcher::new(person_name);
    let mut texts = Vec::new();
    let mut mentions: Vec<Mention> = Vec::new();
    for (p, (text, n)) in passages.iter().enumerate() {
        let mut sentences_read: Vec<String> = Vec::new();
        let mut open: Option<Mention> = None;
        for range in sentences(text) {
            let sentence = &text[range];
            let i = sentences_read.len();
            sentences_read.push(sentence.trim().to_owned());
            let spans = matcher.as_ref().map(|m| m.spans(sentence)).unwrap_or_default();
            if !spans.is_empty() {
                mentions.extend(open.take());
                open = Some(Mention {
                    source: *n,
                    passage: p,
                    sentences: i..i + 1,
                    quote: sentence.trim().to_owned(),
                    description: describe_mention(sentence, &spans),
                });
            } else if let Some(pronoun) = CONTINUING_PRONOUN.find(sentence).filter(|_| open.is_some()) {
                if let Some(mention) = open.as_mut() {
                    mention.sentences.end = i + 1;
                    mention.quote.push(' ');
                    mention.quote.push_str(sentence.trim());
                    mention.description.merge(describe::describe(&sentence[pronoun.end()..], describe::Mode::Text));
                }
            } else {
                mentions.extend(open.take());
            }
        }
        mentions.extend(open.take());
        texts.push(sentences_read);
    }
    (texts, mentions)
}

/// Sorts `passages` (`(text, n)`, `n` the source number) by whether they are about `person_name`
/// as `identity` describes them. See the module documentation for the rule.
pub fn sort_evidence(person_name: &str, identity: &PersonIdentity, passages: &[(&str, usize)]) -> IdentitySorting {
    let (texts, mentions) = read_passages(person_name, passages);
    let verdicts: Vec<Verdict> = mentions.iter().map(|m| judge(identity, &m.description)).collect();
    // Mentions set aside, with what contradicts; and sources set aside whole.
    let mut dropped: Vec<Option<Vec<String>>> = vec![None; mentions.len()];
    let sources: BTreeSet<usize> = mentions.iter().map(|m| m.source).collect();
    let mut fitting_sources = BTreeSet::new();
    let mut set_aside_sources = BTreeSet::new();
    for &n in &sources {
        let of_source: Vec<usize> = (0..mentions.len()).filter(|&i| mentions[i].source == n).collect();
        let fits = of_source.iter().any(|&i| verdicts[i] == Verdict::Fits);
        if fits && !identity.is_empty() {
            fitting_sources.insert(n);
        }
        let conflicting = of_source.iter().filter(|&&i| is_conflict(&verdicts[i]));
        if !fits && of_source.iter().any(|&i| is_conflict(&verdicts[i])) {
            set_aside_sources.insert(n);
        }
        for &i in conflicting {
            if let Verdict::Conflicts(found) = &verdicts[i] {
                dropped[i] = Some(found.clone());
            }
        }
    }

    let kept_described: Vec<usize> = (0..mentions.len())
        .filter(|&i| dropped[i].is_none() && !set_aside_sources.contains(&mentions[i].source))
        .filter(|&i| !mentions[i].description.is_empty())
        .collect();
    let (mut candidates, members) = candidates(&mentions, &kept_described);
    // Two people described, and the identity's company names one of them: the other is a namesake.
    if candidates.len() >= 2 {
        let by_company: Vec<usize> = (0..candidates.len())
            .filter(|&c| members[c].iter().any(|&i| company_fits(identity, &mentions[i].description)))
            .collect();
        if let [ours] = by_company[..] {
            for (c, candidate) in candidates.iter().enumerate().filter(|(c, _)| *c != ours) {
                for &i in &members[c] {
                    dropped[i] = Some(vec![format!(
                        "is described as {}, unlike the sources that name {}",
                        candidate.described_as.in_words(),
                        identity.company().unwrap_or_default()
                    )]);
                }
            }
            candidates = vec![candidates.swap_remove(ours)];
        }
    }

    let mut set_aside = Vec::new();
    for &n in &set_aside_sources {
        let of_source: Vec<&Mention> = mentions.iter().filter(|m| m.source == n).collect();
        let mut described = Description::default();
        let mut conflicts: Vec<String> = Vec::new();
        for (i, mention) in mentions.iter().enumerate().filter(|(_, m)| m.source == n) {
            for conflict in dropped[i].iter().flatten() {
                described.merge(mention.description.clone());
                if !conflicts.contains(conflict) {
                    conflicts.push(conflict.clone());
                }
            }
        }
        let quote = of_source.iter().map(|m| m.quote.as_str()).collect::<Vec<_>>().join(" ");
        set_aside.push(set_aside_entry(person_name, identity, n, &quote, &described, &conflicts));
    }
    for (i, mention) in mentions.iter().enumerate() {
        if let Some(conflicts) = &dropped[i]
            && !set_aside_sources.contains(&mention.source)
        {
            set_aside.push(set_aside_entry(
                person_name,
                identity,
                mention.source,
                &mention.quote,
                &mention.description,
                conflicts,
            ));
        }
    }

    let mut kept = Vec::new();
    let mut mentioning_sources = BTreeSet::new();
    for (p, (text, n)) in passages.iter().enumerate() {
        if set_aside_sources.contains(n) {
            continue;
        }
        let removed: Vec<&std::ops::Range<usize>> = (0..mentions.len())
            .filter(|&i| mentions[i].passage == p && dropped[i].is_some())
            .map(|i| &mentions[i].sentences)
            .collect();
        if mentions.iter().enumerate().any(|(i, m)| m.passage == p && dropped[i].is_none()) {
            mentioning_sources.insert(*n);
        }
        let text = if removed.is_empty() {
            (*text).to_owned()
        } else {
            let sentences = &texts[p];
            let kept_sentences: Vec<&str> = (0..sentences.len())
                .filter(|i| !removed.iter().any(|r| r.contains(i)))
                .map(|i| sentences[i].as_str())
                .collect();
            kept_sentences.join("\n")
        };
        kept.push((text, *n));
    }

    let status = if candidates.len() >= 2 {
        IdentityStatus::Ambiguous
    } else if mentioning_sources.is_empty() {
        IdentityStatus::NotFound
    } else if identity.is_empty() {
        IdentityStatus::NameOnly
    } else {
        IdentityStatus::Matched
    };
    if status == IdentityStatus::Ambiguous {
        kept.clear();
    }
    fitting_sources.retain(|n| mentioning_sources.contains(n));
    IdentitySorting {
        status,
        identity: identity.clone(),
        kept,
        set_aside,
        candidates,
        fitting_sources,
        mentioning_sources,
    }
}

fn is_conflict(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Conflicts(_))
}

fn company_fits(identity: &PersonIdentity, mention: &Description) -> bool {
    identity.company().is_some_and(|company| {
        [&mention.company, &mention.affiliation].into_iter().flatten().any(|named| same_company(company, named))
    })
}

fn set_aside_entry(
    person_name: &str,
    identity: &PersonIdentity,
    source: usize,
    quote: &str,
    described: &Description,
    conflicts: &[String],
) -> SetAside {
    let described_as = PersonIdentity::from_description(described);
    let former = if described.former { " (described as former)" } else { "" };
    let asked = if identity.is_empty() {
        String::new()
    } else {
        format!("; the {person_name} asked about is {}", identity.in_words())
    };
    let reason = format!("A different {person_name}: this one {}{former}{asked}.", conflicts.join(", and "));
    SetAside { source, quote: cut(quote, MAX_QUOTE_CHARS), reason, described_as }
}

/// Groups the described mentions `which` into the people they describe: each joins the first
/// candidate it fits, else the first it does not contradict, else starts its own. Returns the
/// candidates and the mentions of each.
fn candidates(mentions: &[Mention], which: &[usize]) -> (Vec<Candidate>, Vec<Vec<usize>>) {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for &i in which {
        let (n, description) = (mentions[i].source, &mentions[i].description);
        let verdicts: Vec<Verdict> = candidates.iter().map(|c| judge(&c.described_as, description)).collect();
        let joined = verdicts
            .iter()
            .position(|v| *v == Verdict::Fits)
            .or_else(|| verdicts.iter().position(|v| *v == Verdict::Silent));
        match joined {
            Some(c) => {
                candidates[c].described_as.fill_from(description);
                candidates[c].sources.insert(n);
                members[c].push(i);
            }
            None => {
                candidates.push(Candidate {
                    described_as: PersonIdentity::from_description(description),
                    sources: BTreeSet::from([n]),
                });
                members.push(vec![i]);
            }
        }
    }
    (candidates, members)
}

impl IdentitySorting {
    /// What to tell the user: which person was matched, what was set aside, or, when ambiguous,
    /// the question which one they mean.
    pub fn message(&self, person_name: &str) -> String {
        let set_aside = match self.set_aside.len() {
            0 => String::new(),
            1 => format!(
                " 1 passage about a different person named {person_name} was set aside (see identity.set_aside)."
            ),
            count => format!(
                " {count} passages about different people named {person_name} were set aside (see identity.set_aside)."
            ),
        };
        match self.status {
            IdentityStatus::Ambiguous => {
                let described: Vec<String> = self
                    .candidates
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        format!("({}) {} [sources {}]", i + 1, c.described_as.in_words(), numbers(&c.sources))
                    })
                    .collect();
                format!(
                    "The sources describe {} different people named {person_name}: {}. Which one do you mean? Please run it again with their company, role or location (for example \"{person_name}, {}\"); nothing was assessed from the mixed evidence.{set_aside}",
                    self.candidates.len(),
                    described.join("; "),
                    self.candidates.first().map_or_else(String::new, |c| c.described_as.in_words())
                )
            }
            IdentityStatus::NotFound if self.identity.is_empty() => {
                format!("No source names {person_name}.{set_aside}")
            }
            IdentityStatus::NotFound => {
                format!("No source names {person_name} ({}).{set_aside}", self.identity.in_words())
            }
            IdentityStatus::Matched => format!(
                "Sources were matched to {person_name} ({}): {} of the {} naming them confirm it, the others do not contradict it.{set_aside}",
                self.identity.in_words(),
                self.fitting_sources.len(),
                self.mentioning_sources.len()
            ),
            IdentityStatus::NameOnly => format!(
                "Sources were matched to {person_name} by name only: give their company, role or location to rule out namesakes.{set_aside}"
            ),
        }
    }

    /// `{status, company, role, location, message, candidates: [{company, role, location, sources,
    /// urls}], set_aside: [{source, url, quote, reason, described_as}]}`; `url` maps a source
    /// number to its address.
    pub fn to_json(&self, person_name: &str, url: impl Fn(usize) -> Option<String>) -> Value {
        let candidates: Vec<Value> = self
            .candidates
            .iter()
            .map(|c| {
                json!({
                    "company": c.described_as.company,
                    "role": c.described_as.role,
                    "location": c.described_as.location,
                    "sources": c.sources,
                    "urls": c.sources.iter().filter_map(|n| url(*n)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let set_aside: Vec<Value> = self
            .set_aside
            .iter()
            .map(|s| {
                json!({
                    "source": s.source,
                    "url": url(s.source),
                    "quote": s.quote,
                    "reason": s.reason,
                    "described_as": s.described_as.to_json(),
                })
            })
            .collect();
        json!({
            "status": self.status.as_str(),
            "company": self.identity.company,
            "role": self.identity.role,
            "location": self.identity.location,
            "message": self.message(person_name),
            "candidates": candidates,
            "set_aside": set_aside,
        })
    }

    /// How source `n` was taken: `fits`, `not_contradicted`, `set_aside`, `ambiguous`, or `None`
    /// when it does not name the person at all.
    pub fn source_match(&self, n: usize) -> Option<&'static str> {
        let whole_set_aside = self.set_aside.iter().any(|s| s.source == n) && !self.mentioning_sources.contains(&n);
        if whole_set_aside {
            Some("set_aside")
        } else if !self.mentioning_sources.contains(&n) {
            None
        } else if self.status == IdentityStatus::Ambiguous {
            Some("ambiguous")
        } else if self.fitting_sources.contains(&n) {
            Some("fits")
        } else {
            Some("not_contradicted")
        }
    }
}

fn numbers(sources: &BTreeSet<usize>) -> String {
    sources.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
