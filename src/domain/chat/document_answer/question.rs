//! Which term of the credit agreement a chat question asks about: [`recognise_document_question`].
//! Each term has its nouns, most specific first; a question names them after a question word and a
//! definite article ("what is the margin?"), asks whether there is one ("is there a floor?"), or
//! names them alone ("governing law?"). A few questions are recognised by their verb instead ("when
//! does it mature?", "which law governs the agreement?").

use std::sync::LazyLock;

use regex::Regex;

use super::AgreementField;
use crate::domain::chat::phrases::{compile, normalise, strip_framing};

/// Each field's nouns, most specific first (a phrase is tried against the fields in this order).
const FIELD_NOUNS: &[(AgreementField, &str)] = &[
    (AgreementField::CommitmentFee, r"(?:commitment|undrawn|ticking|unused(?:\s+line)?|facility)\s+fees?|fees"),
    (
        AgreementField::Floor,
        r"(?:(?:sofr|sonia|euribor|libor|index|benchmark|base\s+rate|interest\s+rate|rate|zero)\s+)?floors?",
    ),
    (
        AgreementField::FloatingRateIndex,
        r"floating\s+rate\s+index|(?:benchmark|reference|base|floating|variable)(?:\s+interest)?\s+rates?|benchmarks?|(?:interest\s+)?rate\s+index|index",
    ),
    (
        AgreementField::Margin,
        r"(?:(?:applicable|interest|loan|credit|current|initial)\s+)?(?:margins?|spreads?)|(?:all-in\s+)?(?:interest\s+)?rates?|pricing|coupon|interest",
    ),
    (
        AgreementField::GoverningLaw,
        r"(?:governing|applicable|choice\s+of)\s+law|governing\s+jurisdiction|law|jurisdiction",
    ),
    (AgreementField::EffectiveDate, r"(?:effective|closing)\s+date|closing"),
    (
        AgreementField::AgreementDate,
        r"(?:agreement|signing|execution|contract|signature)\s+date|date\s+of\s+(?:the\s+)?(?:agreement|contract|signing)|(?:agreement|contract)'s\s+date",
    ),
    (
        AgreementField::Maturity,
        r"(?:final\s+)?maturity(?:\s+date)?|maturities|termination\s+date|expiry(?:\s+date)?|expiration(?:\s+date)?|repayment\s+date|tenor|term",
    ),
    (AgreementField::Borrower, r"borrowers?|obligors?|borrowing\s+entity"),
    (AgreementField::Guarantors, r"guarantors?|guarantees?"),
    (AgreementField::Agent, r"(?:administrative|facility|collateral|security|loan)\s+agent|agents?"),
    (AgreementField::Lenders, r"lenders?|lending\s+banks|banks|syndicate|lender\s+group"),
    (AgreementField::Parties, r"parties(?:\s+involved)?|counterparties|counterparty|signatories"),
    (AgreementField::Currency, r"currency|currencies|denomination"),
    (
        AgreementField::Covenants,
        r"(?:(?:financial|maintenance|leverage|interest\s+cover(?:age)?|debt\s+service\s+cover(?:age)?)\s+)?covenants?|(?:leverage|coverage)\s+tests?",
    ),
    (
        AgreementField::FacilityAmount,
        r"(?:facility|loan|commitment|principal|total|aggregate|deal)\s+(?:amount|size)|size|amount|(?:total\s+|aggregate\s+)?commitments?|principal(?:\s+amount)?|facilities|facility|loan",
    ),
];

const QUESTION: &str = r"(?:(?:what|which|who|when|where)\s+(?:is|are|was|were)|how\s+(?:much|big|large)\s+(?:is|are|was|were)|(?:tell|show|give|remind)\s+me(?:\s+(?:of|about|what|who|when|which)(?:\s+(?:is|are|was|were))?)?|list|explain|summari[sz]e|describe|confirm|check|find|get|(?:do|does)\s+you\s+(?:know|see)|i\s+(?:want|need)\s+to\s+know)";
const EXISTENCE: &str = r"(?:(?:is|are)\s+there|(?:does|do)\s+(?:it|the\s+(?:agreement|facility|facilities|loan|deal|document))\s+(?:have|include|contain))\s+(?:a|an|any)";
const TRANCHE: &str = r"(?:(?:term\s+loan(?:\s+[ab])?|revolver|revolving\s+(?:credit\s+)?facility|rcf|tl[ab]|facility|loan|deal|agreement|credit\s+agreement|document|contract)(?:'s)?\s+)";
const SCOPE: &str = r"(?:\s+(?:(?:on|in|of|under|for|to|at)\s+(?:the|this|our|that)\s+(?:credit\s+)?(?:agreement|facility|facilities|loan|loans|deal|document|contract|term\s+loan(?:\s+[ab])?|revolver|revolving\s+(?:credit\s+)?facility|rcf|tranche|tl[ab])|(?:in|under)\s+(?:it|this|here)|here))";

struct FieldPatterns {
    field: AgreementField,
    question: Regex,
    existence: Regex,
    bare: Regex,
}

static FIELD_PATTERNS: LazyLock<Vec<FieldPatterns>> = LazyLock::new(|| {
    FIELD_NOUNS
        .iter()
        .map(|(field, nouns)| {
            // "its margins" is more likely a company's than the document's; the other terms are
            // the document's whoever "it" is.
            let determiner =
                if *field == AgreementField::Margin { r"(?:the|this|our|that)" } else { r"(?:the|this|our|that|its)" };
            FieldPatterns {
                field: *field,
                question: compile(&format!(r"(?i)^{QUESTION}\s+{determiner}\s+{TRANCHE}?(?:{nouns}){SCOPE}?$")),
                existence: compile(&format!(r"(?i)^{EXISTENCE}\s+{TRANCHE}?(?:{nouns}){SCOPE}?$")),
                bare: compile(&format!(r"(?i)^(?:the\s+)?{TRANCHE}?(?:{nouns})$")),
            }
        })
        .collect()
});

static VERB_QUESTIONS: LazyLock<Vec<(AgreementField, Regex)>> = LazyLock::new(|| {
    const SUBJECT: &str = r"(?:it|this|the\s+(?:loan|facility|facilities|agreement|deal|debt|term\s+loan|revolver|credit\s+agreement|contract))";
    [
        (
            AgreementField::Maturity,
            format!(
                r"(?i)^when\s+(?:does|will|did|do)\s+{SUBJECT}\s+(?:mature|expire|terminate|end|fall\s+due|come\s+due|run\s+out)$"
            ),
        ),
        (AgreementField::Maturity, format!(r"(?i)^when\s+(?:is|are)\s+{SUBJECT}\s+(?:due|repayable|payable)$")),
        (AgreementField::Maturity, r"(?i)^how\s+long\s+is\s+the\s+(?:loan|facility|term|tenor)$".to_owned()),
        (
            AgreementField::AgreementDate,
            format!(r"(?i)^when\s+(?:was|is)\s+{SUBJECT}\s+(?:signed|dated|executed|entered\s+into|agreed|concluded)$"),
        ),
        (
            AgreementField::EffectiveDate,
            format!(r"(?i)^when\s+(?:does|did)\s+{SUBJECT}\s+(?:become\s+effective|take\s+effect|close)$"),
        ),
        (
            AgreementField::GoverningLaw,
            format!(
                r"(?i)^(?:under\s+)?(?:which|what)\s+(?:law|laws|jurisdiction)\s+(?:governs|govern|applies\s+to|apply\s+to|applies|apply|is\s+{SUBJECT}\s+governed\s+by|is\s+{SUBJECT}\s+under|governs\s+{SUBJECT})(?:\s+{SUBJECT})?$"
            ),
        ),
        (AgreementField::GoverningLaw, format!(r"(?i)^(?:which|what)\s+law\s+is\s+{SUBJECT}(?:\s+governed)?\s+(?:by|under)$")),
        (
            AgreementField::Borrower,
            r"(?i)^who\s+(?:borrows|is\s+borrowing|is\s+the\s+borrowing\s+entity)(?:\s+(?:the\s+money|under\s+(?:it|this|the\s+\w+)))?$|^who\s+are\s+we\s+lending\s+to$".to_owned(),
        ),
        (
            AgreementField::Lenders,
            r"(?i)^who\s+(?:lends|is\s+lending|are\s+the\s+banks|provides\s+the\s+(?:loan|facility|money)|is\s+providing\s+the\s+(?:loan|facility|money))$".to_owned(),
        ),
        (
            AgreementField::FacilityAmount,
            r"(?i)^how\s+much\s+(?:is|was|has\s+been)\s+(?:being\s+)?(?:lent|borrowed|committed|available)$|^how\s+much\s+(?:can|could|may)\s+(?:they|the\s+borrower|it|the\s+company)\s+borrow$|^how\s+(?:big|large)\s+is\s+(?:it|the\s+deal)$".to_owned(),
        ),
        (
            AgreementField::Currency,
            format!(
                r"(?i)^(?:in\s+)?(?:what|which)\s+currenc(?:y|ies)(?:\s+(?:is|are)\s+{SUBJECT}(?:\s+(?:in|denominated\s+in|drawn\s+in))?)?$"
            ),
        ),
        (AgreementField::Margin, format!(r"(?i)^how\s+is\s+{SUBJECT}\s+priced$|^what\s+is\s+{SUBJECT}\s+priced\s+at$")),
    ]
    .into_iter()
    .map(|(field, pattern)| (field, compile(&pattern)))
    .collect()
});

/// The agreement term a question asks about, when it is a question about the document. The
/// question must point at the document: a definite article or "this/our/its" before the term
/// ("what is the margin?", "who are the lenders under the agreement?"), an existence question
/// ("is there a floor?"), a loan verb ("when does it mature?", "which law governs the
/// agreement?"), or the bare term alone ("governing law?"). "What is a margin?" or "what are
/// Tesla's margins" are not about the document.
///
/// Takes a raw message: it is normalised and stripped of greetings and request frames as the chat
/// grammar does (see [`crate::domain::chat::intent`]), so "Hi, could you tell me what's the
/// margin?" is a margin question.
pub fn recognise_document_question(message: &str) -> Option<AgreementField> {
    let request = strip_framing(&normalise(message));
    let request = request.as_str();
    if let Some((field, _)) = VERB_QUESTIONS.iter().find(|(_, pattern)| pattern.is_match(request)) {
        return Some(*field);
    }
    FIELD_PATTERNS
        .iter()
        .find(|p| p.question.is_match(request) || p.existence.is_match(request) || p.bare.is_match(request))
        .map(|p| p.field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_that_point_at_the_document_are_recognised() {
        use AgreementField as F;
        for (question, field) in [
            ("what is the margin", F::Margin),
            ("what is the margin on the term loan", F::Margin),
            ("what is the term loan b margin", F::Margin),
            ("who is the borrower", F::Borrower),
            ("when does it mature", F::Maturity),
            ("what is the governing law", F::GoverningLaw),
            ("which law governs the agreement", F::GoverningLaw),
            ("what are the financial covenants", F::Covenants),
            ("is there a SOFR floor", F::Floor),
            ("how big is the facility", F::FacilityAmount),
            ("what are the total commitments", F::FacilityAmount),
            ("who is the administrative agent", F::Agent),
            ("who are the lenders under the agreement", F::Lenders),
            ("who are the parties to the agreement", F::Parties),
            ("what currency is the loan in", F::Currency),
            ("what is the benchmark rate", F::FloatingRateIndex),
            ("what is the commitment fee", F::CommitmentFee),
            ("when was the agreement signed", F::AgreementDate),
            ("what is the closing date", F::EffectiveDate),
            ("governing law?", F::GoverningLaw),
            ("tell me the maturity date", F::Maturity),
            ("are there any guarantors", F::Guarantors),
            ("Hi, could you tell me what's the margin?", F::Margin),
        ] {
            assert_eq!(recognise_document_question(question), Some(field), "{question}");
        }
    }

    #[test]
    fn definitions_and_other_subjects_are_not_document_questions() {
        for question in [
            "what is a margin",
            "what are Tesla's margins",
            "what is SOFR",
            "what are the margins of Tesla",
            "what is the deal",
            "what is the date today",
            "who is Mary Major",
            "explain DSCR",
            "what are its margins",
        ] {
            assert_eq!(recognise_document_question(question), None, "{question}");
        }
    }

    #[test]
    fn any_question_is_recognised_or_not_without_panicking() {
        for question in ["", "?", "the", "what is the", "é\u{a0}margin", "what is the margin on the the"] {
            let _ = recognise_document_question(question);
        }
    }
}
