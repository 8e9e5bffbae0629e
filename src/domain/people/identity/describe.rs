//! Reading what a text ties a person to — a company, a role, a location — from the words right
//! around their name ("Jane Doe, CFO of Acme Corp", "Ohio State history professor Jane Doe", "Jane
//! Doe, 52, of Columbus, Ohio", "Jane Doe (CFO, Acme Corp)") or from a free-text description
//! ("partner at Smith & Co in Boston", "Acme Corp, London"). Only words next to the name are read:
//! "Jane Doe sued Bob Roe, CFO of Widget Ltd" ties Jane Doe to nothing.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::super::text::compile;
use crate::domain::calendar::is_month_or_weekday;

/// What one mention (or a request's context) ties the person to. `affiliation` is a name that may
/// be an employer or a place ("Boston attorney Jane Doe", "Jane Doe of Acme"): it can confirm a
/// company or a location, and contradicts only when it is neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Description {
    pub company: Option<String>,
    pub role: Option<String>,
    pub location: Option<String>,
    pub affiliation: Option<String>,
    /// Described as a former role ("former CFO of …").
    pub former: bool,
}

impl Description {
    pub fn is_empty(&self) -> bool {
        self.company.is_none() && self.role.is_none() && self.location.is_none() && self.affiliation.is_none()
    }

    /// Fills what is missing from `other`.
    pub fn merge(&mut self, other: Description) {
        self.company = self.company.take().or(other.company);
        self.role = self.role.take().or(other.role);
        self.location = self.location.take().or(other.location);
        self.affiliation = self.affiliation.take().or(other.affiliation);
        self.former |= other.former;
    }
}

/// Where a description comes from: a request's context (comma-separated parts, a bare name is a
/// company), or running text (stricter: a bare name after a comma is probably another person).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Context,
    Text,
}

/// A capitalised word (a name's word), with inner dots, apostrophes and hyphens.
const CAP: &str = r"[A-Z][\w'’.-]*";
/// Role words, longest first. Case-insensitive: titles are capitalised before a name.
const ROLE: &str = r"(?i:chief\s+(?:executive|financial|operating|technology|information|investment|risk|legal|marketing|commercial|compliance)(?:\s+officer)?|finance\s+chief|finance\s+director|financial\s+(?:director|controller|adviser|advisor|planner)|director\s+of\s+finance|head\s+of\s+[a-z]+|vice[\s-]president|managing\s+(?:director|partner)|general\s+(?:manager|counsel|partner)|(?:fund|portfolio|hedge\s+fund|investment)\s+manager|executive\s+chair(?:man|woman)?|co-?founder|founder|ceo|cfo|coo|cto|cio|evp|svp|vp|president|chair(?:man|woman|person)?|director|partner|treasurer|controller|owner|proprietor|executive|manager|accountant|auditor|banker|trader|analyst|economist|consultant|entrepreneur|investor|businessman|businesswoman|lawyer|attorney|solicitor|barrister|judge|prosecutor|professor|lecturer|teacher|historian|researcher|scientist|dean|student|doctor|physician|surgeon|nurse|dentist|pharmacist|engineer|architect|developer|programmer|actor|actress|singer|musician|artist|author|writer|novelist|poet|journalist|reporter|photographer|athlete|footballer|coach|senator|mayor|governor|politician|congressman|congresswoman|councillor|councilman|pastor|priest|rabbi|farmer|realtor)";
/// A word that narrows a role without naming an employer ("history professor", "interim CFO").
const QUALIFIER: &str = r"(?i:history|law|economics|finance|financial|mathematics|maths?|physics|chemistry|biology|english|art|music|business|medical|computer|science|political|tax|property|investment|equity|software|senior|junior|deputy|assistant|associate|interim|acting|founding|regional|district|state|federal|county|city|school|university|college|sports|film|fashion|news|television|radio|venture|real\s+estate|private\s+equity|hedge\s+fund)";

fn org() -> String {
    format!(r"{CAP}(?:(?:\s+(?:of|de)\s+|\s*&\s*|\s+){CAP})*")
}

static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"^\s*(?:(?:aged\s+)?\d{1,3}\s*,\s*)?(?:(?:who|which)\s+)?(?:(?:is|was|has\s+been|had\s+been|became|becomes|remains|is\s+now|serves\s+as|served\s+as|works\s+as|worked\s+as|was\s+named|was\s+appointed|has\s+been\s+appointed|named|appointed|hired\s+as|promoted\s+to)\s+)?(?:as\s+)?(?:(?:a|an|the|its|their)\s+)?(?P<former>(?i:former|ex-|then-|one-time|onetime|retired)\s*)?(?:(?:a|an|the)\s+)?",
    )
});
static BASED: LazyLock<Regex> = LazyLock::new(|| compile(&format!(r"^(?P<place>{CAP}(?:\s+{CAP}){{0,2}})-based\s+")));
static ORG_ROLE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(r"^(?P<org>{})(?:'s|’s)?\s+(?:(?:{QUALIFIER}|[a-z]+)\s+)?(?P<role>{ROLE})\b", org()))
});
static ROLE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"^(?:{QUALIFIER}\s+)?(?P<role>{ROLE})\b(?:\s+(?:of|in)\s+(?:the\s+|a\s+|an\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?(?:\s|$|,))?"
    ))
});
static EMPLOYER_AFTER_ROLE: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!(r"^\s*(?:of|at|for|with)\s+(?:the\s+)?(?P<org>{})", org())));
static VERB_EMPLOYER: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"^(?:who\s+)?(?P<verb>joined|founded|co-founded|cofounded|runs|ran|leads|led|heads|headed|owns|owned|chairs|chaired|works\s+(?:at|for)|worked\s+(?:at|for)|teaches(?:\s+[a-z]+)?\s+at|taught(?:\s+[a-z]+)?\s+at)\s+(?:the\s+)?(?P<org>{})",
        org()
    ))
});
static PREPOSITION: LazyLock<Regex> = LazyLock::new(|| compile(r"^(?P<prep>of|from|at|in|based\s+in)\s+(?:the\s+)?"));
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(r"^(?P<city>{CAP}(?:\s+{CAP}){{0,2}})(?:,\s*(?P<region>[A-Z][A-Za-z.]+)(?:[,.;)]|\s*$))?"))
});
static BARE_ORG: LazyLock<Regex> = LazyLock::new(|| compile(&format!(r"^(?P<org>{})", org())));
static LOCATION_TAIL: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*(?:in|based\s+in)\s+"));
/// The words right before a name: "[former] [Acme Corp['s]|Boston-based] [history] professor".
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"(?:\b(?P<former>(?i:former|ex-|then-|one-time|retired))\s*)?(?:\b(?P<based>{CAP}(?:\s+{CAP}){{0,2}})-based\s+|\b(?P<org>{})(?:'s|’s)?\s+)?(?:\b{QUALIFIER}\s+)?\b(?P<role>{ROLE})\s*,?\s*$",
        org()
    ))
});
static POSSESSIVE_PREFIX: LazyLock<Regex> = LazyLock::new(|| compile(&format!(r"\b(?P<org>{})(?:'s|’s)\s+$", org())));
static PARENTHESIS: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s*\((?P<inside>[^)]{1,120})\)"));

/// Legal forms of a company ("Inc", "GmbH"): a name with one is a company's, and two names of one
/// company may differ by them.
pub(super) const LEGAL_FORMS: &[&str] = &[
    "inc",
    "corp",
    "corporation",
    "ltd",
    "limited",
    "llc",
    "llp",
    "plc",
    "co",
    "company",
    "group",
    "holdings",
    "sa",
    "ag",
    "gmbh",
    "nv",
    "bv",
    "lp",
];

/// Other words that make a name an organisation's (an employer, not a person or a place).
const INSTITUTION_WORDS: &[&str] = &[
    "partners",
    "capital",
    "bank",
    "fund",
    "trust",
    "university",
    "college",
    "school",
    "hospital",
    "industries",
    "technologies",
    "systems",
    "services",
    "solutions",
    "ventures",
    "investments",
    "associates",
];

/// Places that are read as locations rather than employers: countries, US states, large cities.
const PLACES: &[&str] = &[
    "alabama",
    "alaska",
    "arizona",
    "arkansas",
    "california",
    "colorado",
    "connecticut",
    "delaware",
    "florida",
    "georgia",
    "hawaii",
    "idaho",
    "illinois",
    "indiana",
    "iowa",
    "kansas",
    "kentucky",
    "louisiana",
    "maine",
    "maryland",
    "massachusetts",
    "michigan",
    "minnesota",
    "mississippi",
    "missouri",
    "montana",
    "nebraska",
    "nevada",
    "new hampshire",
    "new jersey",
    "new mexico",
    "new york",
    "north carolina",
    "north dakota",
    "ohio",
    "oklahoma",
    "oregon",
    "pennsylvania",
    "rhode island",
    "south carolina",
    "south dakota",
    "tennessee",
    "texas",
    "utah",
    "vermont",
    "virginia",
    "washington",
    "west virginia",
    "wisconsin",
    "wyoming",
    "london",
    "paris",
    "berlin",
    "frankfurt",
    "madrid",
    "rome",
    "milan",
    "amsterdam",
    "zurich",
    "geneva",
    "dublin",
    "edinburgh",
    "glasgow",
    "manchester",
    "birmingham",
    "leeds",
    "bristol",
    "boston",
    "chicago",
    "los angeles",
    "san francisco",
    "seattle",
    "houston",
    "dallas",
    "austin",
    "miami",
    "atlanta",
    "denver",
    "phoenix",
    "philadelphia",
    "detroit",
    "columbus",
    "cleveland",
    "toronto",
    "montreal",
    "vancouver",
    "sydney",
    "melbourne",
    "singapore",
    "hong kong",
    "tokyo",
    "shanghai",
    "beijing",
    "mumbai",
    "dubai",
    "johannesburg",
    "united states",
    "usa",
    "us",
    "uk",
    "united kingdom",
    "england",
    "scotland",
    "wales",
    "ireland",
    "france",
    "germany",
    "spain",
    "italy",
    "canada",
    "australia",
    "india",
    "china",
    "japan",
    "switzerland",
    "netherlands",
];

/// A name's words, lower case, without punctuation, "&" as "and".
pub(super) fn words(name: &str) -> Vec<String> {
    name.replace('&', " and ")
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

pub(super) fn is_corporate(name: &str) -> bool {
    name.contains('&')
        || words(name)
            .iter()
            .skip(1)
            .any(|w| LEGAL_FORMS.contains(&w.as_str()) || INSTITUTION_WORDS.contains(&w.as_str()))
}

pub(super) fn is_known_place(name: &str) -> bool {
    let name = words(name).join(" ");
    PLACES.contains(&name.as_str())
}

fn clean(name: &str) -> String {
    let name = name.trim().trim_end_matches(['.', ',', ';', ':']);
    let name = name.strip_suffix("'s").or_else(|| name.strip_suffix("’s")).unwrap_or(name);
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn role_text(raw: &str) -> String {
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A name read after a preposition or before a role: a place, a company, or either.
fn classify(description: &mut Description, name: &str, employer_preposition: bool) {
    let name = clean(name);
    if name.is_empty() || is_month_or_weekday(words(&name).first().map_or("", |w| w.as_str())) {
        return;
    }
    if is_known_place(&name) {
        description.location.get_or_insert(name);
    } else if is_corporate(&name) || employer_preposition {
        description.company.get_or_insert(name);
    } else {
        description.affiliation.get_or_insert(name);
    }
}

/// A place after "in", "of", "from", "based in": "Columbus, Ohio", "Boston".
fn read_place(text: &str) -> Option<(String, usize)> {
    let captures = PLACE.captures(text)?;
    let city = clean(captures.name("city")?.as_str());
    if is_month_or_weekday(words(&city).first().map_or("", |w| w.as_str())) {
        return None;
    }
    let (place, end) = match captures.name("region") {
        Some(region) => (format!("{city}, {}", clean(region.as_str())), region.end()),
        None => (city, captures.name("city")?.end()),
    };
    Some((place, end))
}

/// "in Boston" after an employer or a role.
fn read_location_tail(description: &mut Description, rest: &str) {
    if let Some(tail) = LOCATION_TAIL.find(rest)
        && let Some((place, _)) = read_place(&rest[tail.end()..])
    {
        description.location.get_or_insert(place);
    }
}

/// Reads a description: what follows a name (after a comma, a verb such as "is" or "joined") or a
/// request's context. See the module documentation for the forms read.
pub(super) fn describe(fragment: &str, mode: Mode) -> Description {
    let mut description = Description::default();
    let Some(lead) = LEAD.captures(fragment) else { return description };
    description.former = lead.name("former").is_some();
    let mut rest = &fragment[lead.get(0).map_or(0, |m| m.end())..];
    if let Some(based) = BASED.captures(rest) {
        description.location = based.name("place").map(|p| clean(p.as_str()));
        rest = &rest[based.get(0).map_or(0, |m| m.end())..];
    }
    if let Some(found) = ORG_ROLE.captures(rest) {
        if let Some(name) = found.name("org") {
            classify(&mut description, name.as_str(), false);
        }
        description.role = found.name("role").map(|r| role_text(r.as_str()));
        read_location_tail(&mut description, &rest[end_of(&found)..]);
    } else if let Some(found) = ROLE_FIRST.captures(rest) {
        description.role = found.name("role").map(|r| role_text(r.as_str()));
        let after = &rest[role_end(&found)..];
        match EMPLOYER_AFTER_ROLE.captures(after) {
            Some(employer) => {
                if let Some(name) = employer.name("org") {
                    classify(&mut description, name.as_str(), true);
                }
                read_location_tail(&mut description, &after[end_of(&employer)..]);
            }
            None => read_location_tail(&mut description, after),
        }
    } else if let Some(found) = VERB_EMPLOYER.captures(rest) {
        if let Some(name) = found.name("org") {
            classify(&mut description, name.as_str(), true);
        }
        let verb = found.name("verb").map_or("", |v| v.as_str());
        if verb.contains("founded") {
            description.role = Some("founder".to_owned());
        }
        read_location_tail(&mut description, &rest[end_of(&found)..]);
    } else if let Some(found) = PREPOSITION.captures(rest) {
        let prep = found.name("prep").map_or("", |p| p.as_str());
        let after = &rest[end_of(&found)..];
        let place = read_place(after);
        match place {
            Some((place, _)) if prep.ends_with("in") || is_known_place(&place) || place.contains(',') => {
                description.location = Some(place);
            }
            _ => {
                if let Some(name) = BARE_ORG.captures(after).and_then(|c| c.name("org")) {
                    classify(&mut description, name.as_str(), false);
                    read_location_tail(&mut description, &after[name.end()..]);
                }
            }
        }
    } else if mode == Mode::Context
        && let Some(name) = BARE_ORG.captures(rest).and_then(|c| c.name("org"))
    {
        let name = clean(name.as_str());
        if is_known_place(&name) {
            description.location = Some(name);
        } else {
            description.company = Some(name.clone());
            read_location_tail(&mut description, &rest[rest.find(&name).map_or(0, |i| i + name.len())..]);
        }
    }
    description
}

/// A request's free-text context, read best-effort: comma-separated parts ("Acme Corp, London",
/// "CFO, Acme Corp") each described; a bare name after the company is its location.
pub(super) fn describe_context(context: &str) -> Description {
    let mut description = Description::default();
    for part in context.split([',', ';', '/', '|']).map(str::trim).filter(|p| !p.is_empty()) {
        let mut read = describe(part, Mode::Context);
        // A second bare name ("Acme Corp, London") is where, not who for.
        if description.company.is_some()
            && read.location.is_none()
            && read.role.is_none()
            && let Some(company) = read.company.take()
        {
            read.location = Some(company);
        }
        description.merge(read);
    }
    description
}

/// What a sentence ties the person to, from the words around each of their name's `spans`.
pub(super) fn describe_mention(sentence: &str, spans: &[Range<usize>]) -> Description {
    let mut description = Description::default();
    for span in spans {
        description.merge(describe_prefix(&sentence[..span.start]));
        let after = &sentence[span.end..];
        if let Some(inside) = PARENTHESIS.captures(after).and_then(|c| c.name("inside")) {
            description.merge(describe_context(inside.as_str()));
            continue;
        }
        let after = after.strip_prefix(',').unwrap_or(after);
        description.merge(describe(after, Mode::Text));
    }
    description
}

/// "Acme Corp CFO", "Former Acme Corp finance director", "Boston-based investor", "Acme's".
fn describe_prefix(before: &str) -> Description {
    let mut description = Description::default();
    if let Some(found) = PREFIX.captures(before) {
        description.former = found.name("former").is_some();
        description.role = found.name("role").map(|r| role_text(r.as_str()));
        if let Some(place) = found.name("based") {
            description.location = Some(clean(place.as_str()));
        }
        if let Some(name) = found.name("org") {
            classify(&mut description, name.as_str(), false);
        }
    } else if let Some(name) = POSSESSIVE_PREFIX.captures(before).and_then(|c| c.name("org")) {
        classify(&mut description, name.as_str(), false);
    }
    description
}

fn end_of(captures: &Captures<'_>) -> usize {
    captures.get(0).map_or(0, |m| m.end())
}

/// Where the role (and its lower-case "of history" qualifier, but not a following comma or space)
/// ends.
fn role_end(captures: &Captures<'_>) -> usize {
    let whole = captures.get(0).map_or("", |m| m.as_str());
    whole.trim_end_matches([' ', ',']).len()
}
