//! Stored quantitative analyses: who asked for which kind of analysis, with what request, how far it
//! got (`pending` → `running` → `completed` | `failed`), and what it produced. The computations
//! live in [`crate::domain::quant`]; this is the record of each run.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use time::OffsetDateTime;

use crate::domain::auth::UserId;

uuid_id! {
    /// Identifier of an analysis, as the API exposes it.
    AnalysisId
}

macro_rules! named {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            pub fn as_str(&self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
                    .ok_or_else(|| format!("unknown {} '{s}'", stringify!($name)))
            }
        }
    };
}

named! {
    /// Which analysis was asked for.
    pub enum AnalysisKind {
        Company => "company",
        Market => "market",
        LoanApplication => "loan_application",
    }
}

named! {
    /// How far a run got.
    pub enum AnalysisStatus {
        /// Stored, not started.
        Pending => "pending",
        /// Being computed.
        Running => "running",
        /// Finished with a result.
        Completed => "completed",
        /// Finished with an error.
        Failed => "failed",
    }
}

/// One analysis run.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisRecord {
    pub id: AnalysisId,
    pub owner: UserId,
    pub kind: AnalysisKind,
    /// The request as the client sent it (validated).
    pub request: Value,
    pub deal_id: Option<i64>,
    pub status: AnalysisStatus,
    /// `{summary, findings, metrics, data}` once completed.
    pub result: Option<Value>,
    /// Why it failed, in words fit for the client.
    pub error: Option<String>,
    pub cdm_events: Vec<Value>,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

impl AnalysisRecord {
    /// A run that has just been asked for.
    pub fn pending(
        owner: UserId,
        kind: AnalysisKind,
        request: Value,
        deal_id: Option<i64>,
        created_at: OffsetDateTime,
    ) -> Self {
        Self {
            id: AnalysisId::new_random(),
            owner,
            kind,
            request,
            deal_id,
            status: AnalysisStatus::Pending,
            result: None,
            error: None,
            cdm_events: Vec::new(),
            created_at,
            completed_at: None,
        }
    }
}

/// How a run ends.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisOutcome {
    Completed { result: Value },
    Failed { error: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_statuses_round_trip_through_their_names() {
        for kind in AnalysisKind::ALL {
            assert_eq!(kind.as_str().parse::<AnalysisKind>().as_ref(), Ok(kind));
        }
        for status in AnalysisStatus::ALL {
            assert_eq!(status.as_str().parse::<AnalysisStatus>().as_ref(), Ok(status));
        }
        assert!("sideways".parse::<AnalysisKind>().is_err());
    }

    #[test]
    fn a_new_run_is_pending_without_result() {
        let record = AnalysisRecord::pending(
            UserId::new_random(),
            AnalysisKind::Market,
            serde_json::json!({"query": "SPY"}),
            Some(3),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert_eq!((record.status, record.result.as_ref(), record.completed_at), (AnalysisStatus::Pending, None, None));
    }
}
