//! [`MirrorFinancialData`]: the [`FinancialData`] port over a directory holding SEC's bulk files, for
//! air-gapped deployments that mirror SEC's nightly `companyfacts.zip` (`MARKET_DATA_DIR`):
//!
//! ```text
//! <dir>/company_tickers.json               same format as https://www.sec.gov/files/company_tickers.json
//! <dir>/companyfacts/CIK##########.json    the files of companyfacts.zip, unchanged
//! ```
//!
//! Resolution and normalisation (annual and quarterly) are those of the EDGAR adapter
//! ([`TickerIndex`], [`statements_from_facts`]). The ticker file is read on every resolution, so a
//! mirror refreshed in place is picked up without a restart.
//!
//! A company without a facts file is reported as unusable data naming the file (a 502), not as a
//! company without public financials: a mirror may be incomplete, and only SEC can say that a
//! company files no XBRL data.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::edgar::{TickerIndex, statements_from_facts};
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialData, FinancialDataError, ResolvedCompany,
};

/// The provider name errors carry.
pub const PROVIDER: &str = "SEC local mirror";

/// SEC data read from a local directory.
#[derive(Clone, Debug)]
pub struct MirrorFinancialData {
    dir: PathBuf,
}

impl MirrorFinancialData {
    /// A mirror rooted at `dir`. Nothing is read until the first call: a missing file is reported
    /// then, naming the file.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<dir>/company_tickers.json`.
    pub fn tickers_path(&self) -> PathBuf {
        self.dir.join("company_tickers.json")
    }

    /// `<dir>/companyfacts/CIK##########.json`.
    pub fn facts_path(&self, company: &ResolvedCompany) -> PathBuf {
        self.dir.join("companyfacts").join(format!("CIK{}.json", company.padded_cik()))
    }
}

/// The file's bytes; a missing file is [`FinancialDataError::InvalidData`] naming it, any other read
/// failure (permissions, I/O) [`FinancialDataError::Unavailable`].
async fn read(path: &Path, what: &str) -> Result<Vec<u8>, FinancialDataError> {
    tokio::fs::read(path).await.map_err(|error| match error.kind() {
        ErrorKind::NotFound => FinancialDataError::InvalidData {
            provider: PROVIDER,
            reason: format!("{what}: {} does not exist", path.display()),
        },
        _ => FinancialDataError::Unavailable {
            provider: PROVIDER,
            reason: format!("{what}: cannot read {}: {error}", path.display()),
        },
    })
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[async_trait]
impl FinancialData for MirrorFinancialData {
    async fn resolve(&self, query: &CompanyQuery) -> Result<ResolvedCompany, FinancialDataError> {
        let path = self.tickers_path();
        let json = read(&path, "the ticker list is missing from the mirror").await?;
        TickerIndex::parse(&json, PROVIDER)?.resolve(query)
    }

    async fn statements(
        &self,
        company: &ResolvedCompany,
        years: usize,
        quarters: usize,
    ) -> Result<CompanyStatements, FinancialDataError> {
        let path = self.facts_path(company);
        let what = format!("no company facts for {} (CIK {}) in the mirror", company.name, company.padded_cik());
        let json = read(&path, &what).await?;
        statements_from_facts(&json, company, years, quarters, &file_url(&path), PROVIDER)
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;
    use crate::adapters::market::edgar::fixtures::{FACTS, TICKERS_JSON, apple, company};
    use crate::ports::financial_data::StatementLine;

    /// A mirror directory holding the fixtures, removed on drop.
    struct TempMirror {
        dir: PathBuf,
    }

    impl TempMirror {
        fn with_fixtures() -> Self {
            let dir = std::env::temp_dir().join(format!("creditflow-sec-mirror-{}", uuid::Uuid::new_v4()));
            std::fs::create_dir_all(dir.join("companyfacts")).expect("mirror dir");
            std::fs::write(dir.join("company_tickers.json"), TICKERS_JSON).expect("tickers");
            for (name, body) in FACTS {
                std::fs::write(dir.join("companyfacts").join(name), body).expect("facts");
            }
            Self { dir }
        }

        fn adapter(&self) -> MirrorFinancialData {
            MirrorFinancialData::new(&self.dir)
        }

        fn tickers_path(&self) -> PathBuf {
            self.dir.join("company_tickers.json")
        }
    }

    impl Drop for TempMirror {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    #[tokio::test]
    async fn market_mirror_resolves_and_normalises_like_edgar() {
        let mirror = TempMirror::with_fixtures();
        let adapter = mirror.adapter();

        let resolved = adapter.resolve(&CompanyQuery::new("apple", None)).await.expect("apple");
        assert_eq!(resolved, apple());
        let result = adapter.annual_statements(&resolved, 6).await.expect("statements");

        let fy23 = result.financials.latest().expect("fy23");
        assert_eq!(fy23.fiscal_year_end, date!(2023 - 09 - 30));
        assert_eq!(fy23.revenue, Some(383_285_000_000.0));
        assert_eq!(result.financials.years().len(), 3);
        let revenue = result.provenance_of(fy23.fiscal_year_end, StatementLine::Revenue).expect("provenance");
        let expected_path = mirror.dir.join("companyfacts").join("CIK0000320193.json");
        assert_eq!(revenue.source_url, format!("file://{}", expected_path.display()));
        assert_eq!(revenue.accession_number, "0000320193-23-000106");

        let fallback = adapter.resolve(&CompanyQuery::new("FBWG", None)).await.expect("by ticker");
        let derived = adapter.annual_statements(&fallback, 1).await.expect("statements");
        let year = derived.financials.latest().expect("year");
        assert_eq!(year.total_liabilities, Some(315_000_000.0));
        assert!(
            derived
                .provenance_of(year.fiscal_year_end, StatementLine::TotalLiabilities)
                .is_some_and(|p| p.derivation.is_some())
        );
    }

    #[tokio::test]
    async fn market_mirror_reads_quarters_with_the_edgar_rules() {
        let mirror = TempMirror::with_fixtures();
        let adapter = mirror.adapter();

        let statements = adapter.statements(&apple(), 6, 8).await.expect("statements");

        let quarters = statements.quarterly.statements.quarters();
        assert_eq!(quarters.len(), 5);
        let q4 = quarters.iter().find(|q| q.period_end == date!(2023 - 09 - 30)).expect("derived fourth quarter");
        assert_eq!(q4.lines.revenue, Some((383_285.0 - 117_154.0 - 94_836.0 - 81_797.0) * 1e6));
        let provenance = statements.quarterly.provenance_of(q4.period_end, StatementLine::Revenue).expect("provenance");
        let expected_path = mirror.dir.join("companyfacts").join("CIK0000320193.json");
        assert_eq!(provenance.source_url, format!("file://{}", expected_path.display()));
        assert!(provenance.derivation.as_deref().is_some_and(|d| d.starts_with("fourth quarter = fiscal year")));
        let annual_only = adapter.annual_statements(&apple(), 6).await.expect("annual");
        assert_eq!(annual_only, statements.annual, "the annual statements do not depend on the quarters");
    }

    #[tokio::test]
    async fn market_mirror_ambiguous_and_unknown_companies_are_reported() {
        let mirror = TempMirror::with_fixtures();
        let adapter = mirror.adapter();

        let ambiguous = adapter.resolve(&CompanyQuery::new("acme", None)).await.expect_err("ambiguous");
        assert!(matches!(&ambiguous, FinancialDataError::Ambiguous { candidates, .. } if candidates.len() == 2));
        let unknown = adapter.resolve(&CompanyQuery::new("Globex", None)).await.expect_err("unknown");
        assert!(matches!(&unknown, FinancialDataError::UnknownCompany { query } if query == "Globex"));
    }

    #[tokio::test]
    async fn market_mirror_missing_files_are_invalid_data_naming_the_file() {
        let mirror = TempMirror::with_fixtures();
        let adapter = mirror.adapter();

        let error = adapter
            .annual_statements(&company(1900005, "No XBRL Shell Co", "NOXB"), 5)
            .await
            .expect_err("missing facts");
        let FinancialDataError::InvalidData { provider, reason } = &error else { panic!("{error:?}") };
        assert_eq!(*provider, PROVIDER);
        assert!(reason.contains("CIK0001900005.json"), "{reason}");

        std::fs::remove_file(mirror.tickers_path()).expect("remove tickers");
        let error = adapter.resolve(&CompanyQuery::new("apple", None)).await.expect_err("missing tickers");
        assert!(
            matches!(&error, FinancialDataError::InvalidData { reason, .. } if reason.contains("company_tickers.json")),
            "{error:?}"
        );
    }
}
