//! [`CsvMirrorPrices`]: daily closes from a local directory of CSV files, for air-gapped deployments
//! and the demo (`MARKET_DATA_DIR`).
//!
//! Layout: `<MARKET_DATA_DIR>/prices/<SYMBOL>.csv`, the symbol upper-cased as
//! [`normalize_symbol`] makes it (`prices/BRK-B.csv`, `prices/^GSPC.csv`). The `prices/`
//! sub-directory keeps price files apart from the filings mirror in the same directory.
//!
//! Format: a header line, then one line per day, comma-separated, no quoting (the files are simple).
//! The header is either `Date,Close` or Yahoo's download format
//! `Date,Open,High,Low,Close,Adj Close,Volume`; columns are found by name (case-insensitive, any
//! order, extra columns ignored) and `Adj Close` is preferred to `Close` when present. Dates are
//! `YYYY-MM-DD`. Blank lines are skipped, and so are days whose close is empty or `null` (Yahoo
//! writes those for days without a price). A UTF-8 byte-order mark and CRLF line ends are tolerated.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use time::Date;
use time::macros::format_description;

use crate::domain::quant::market::{PricePoint, PriceSeries, TimeRange};
use crate::ports::price_history::{PriceHistory, PriceHistoryError, normalize_symbol, trailing_for_range};

const PROVIDER: &str = "local-mirror";

/// The [`PriceHistory`] port over a directory of CSV files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvMirrorPrices {
    dir: PathBuf,
}

impl CsvMirrorPrices {
    /// Reads `<dir>/prices/<SYMBOL>.csv`. The directory is not checked here: a missing file is an
    /// unknown symbol at request time.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The file holding `symbol`'s prices (`symbol` already normalised).
    pub fn file_for(&self, symbol: &str) -> PathBuf {
        self.dir.join("prices").join(format!("{symbol}.csv"))
    }
}

#[async_trait]
impl PriceHistory for CsvMirrorPrices {
    #[tracing::instrument(name = "prices.csv_mirror", skip(self), fields(provider = PROVIDER))]
    async fn daily_closes(&self, symbol: &str, range: TimeRange) -> Result<PriceSeries, PriceHistoryError> {
        let symbol = normalize_symbol(symbol)?;
        let path = self.file_for(&symbol);
        let bytes = match tokio::fs::read(&path).await {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(PriceHistoryError::UnknownSymbol { symbol });
            }
            Err(error) => {
                return Err(PriceHistoryError::Unavailable {
                    provider: PROVIDER,
                    reason: format!("cannot read {}: {error}", path.display()),
                });
            }
        };
        let text =
            std::str::from_utf8(&bytes).map_err(|e| invalid(format!("{} is not UTF-8 text: {e}", path.display())))?;
        let points = parse_price_csv(&path, text)?;
        if points.is_empty() {
            return Err(invalid(format!("{} holds no prices", path.display())));
        }
        let series = PriceSeries::new(&symbol, points).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
        Ok(trailing_for_range(series, range))
    }

    fn provider(&self) -> &'static str {
        PROVIDER
    }
}

fn invalid(reason: String) -> PriceHistoryError {
    PriceHistoryError::InvalidData { provider: PROVIDER, reason }
}

/// Parses a price file; errors name `path` and the 1-based line.
fn parse_price_csv(path: &Path, text: &str) -> Result<Vec<PricePoint>, PriceHistoryError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(index, line)| (index + 1, line.trim()));
    let Some((_, header)) = lines.find(|(_, line)| !line.is_empty()) else {
        return Ok(Vec::new());
    };
    let columns: Vec<String> = header.split(',').map(|name| name.trim().to_ascii_lowercase()).collect();
    let position = |name: &str| columns.iter().position(|column| column == name);
    let date_column =
        position("date").ok_or_else(|| invalid(format!("{}: the header has no 'Date' column", path.display())))?;
    let close_column = position("adj close").or_else(|| position("close")).ok_or_else(|| {
        invalid(format!("{}: the header has neither an 'Adj Close' nor a 'Close' column", path.display()))
    })?;
    let format = format_description!("[year]-[month]-[day]");
    let mut points = Vec::new();
    for (number, line) in lines {
        if line.is_empty() {
            continue;
        }
        let malformed = |why: String| invalid(format!("{} line {number}: {why}", path.display()));
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != columns.len() {
            return Err(malformed(format!("{} fields where the header has {}", fields.len(), columns.len())));
        }
        let (Some(date), Some(close)) = (fields.get(date_column), fields.get(close_column)) else {
            return Err(malformed("missing fields".to_owned()));
        };
        if close.is_empty() || close.eq_ignore_ascii_case("null") {
            continue;
        }
        let date =
            Date::parse(date, format).map_err(|_| malformed(format!("'{}' is not a YYYY-MM-DD date", cut(date))))?;
        let close = close.parse::<f64>().map_err(|_| malformed(format!("'{}' is not a number", cut(close))))?;
        points.push(PricePoint { date, close });
    }
    Ok(points)
}

/// A field cut short for an error message.
fn cut(field: &str) -> String {
    field.chars().take(30).collect()
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn mirror() -> CsvMirrorPrices {
        CsvMirrorPrices::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/adapters/market/fixtures/prices/mirror"))
    }

    fn dated_closes(series: &PriceSeries) -> Vec<(Date, f64)> {
        series.points().iter().map(|p| (p.date, p.close)).collect()
    }

    #[tokio::test]
    async fn csv_mirror_reads_date_close_files() {
        let series = mirror().daily_closes("aapl", TimeRange::OneMonth).await.expect("series");

        assert_eq!(series.symbol(), "AAPL");
        assert_eq!(
            dated_closes(&series),
            vec![
                (date!(2024 - 01 - 02), 185.64),
                (date!(2024 - 01 - 03), 184.25),
                (date!(2024 - 01 - 04), 181.91),
                (date!(2024 - 01 - 05), 181.18),
            ]
        );
        assert_eq!(mirror().provider(), "local-mirror");
    }

    #[tokio::test]
    async fn csv_mirror_prefers_adj_close_in_ohlcv_files_and_skips_null_days() {
        // BOM, CRLF line ends and a `null` adjusted close, as in Yahoo's CSV download.
        let series = mirror().daily_closes("MSFT", TimeRange::OneMonth).await.expect("series");

        assert_eq!(
            dated_closes(&series),
            vec![(date!(2024 - 01 - 02), 367.94), (date!(2024 - 01 - 03), 367.67), (date!(2024 - 01 - 05), 364.85)]
        );
    }

    #[tokio::test]
    async fn csv_mirror_uses_close_in_ohlcv_files_without_adj_close() {
        let series = mirror().daily_closes("IBM", TimeRange::OneMonth).await.expect("series");

        assert_eq!(dated_closes(&series), vec![(date!(2024 - 01 - 02), 161.50), (date!(2024 - 01 - 03), 160.10)]);
    }

    #[tokio::test]
    async fn csv_mirror_missing_file_is_an_unknown_symbol() {
        let error = mirror().daily_closes("ZZZZ", TimeRange::OneMonth).await.expect_err("unknown");

        assert_eq!(error, PriceHistoryError::UnknownSymbol { symbol: "ZZZZ".into() });
    }

    #[tokio::test]
    async fn csv_mirror_malformed_line_is_invalid_data_naming_file_and_line() {
        let error = mirror().daily_closes("BAD", TimeRange::OneMonth).await.expect_err("malformed");

        let PriceHistoryError::InvalidData { provider, reason } = &error else { panic!("{error:?}") };
        assert_eq!(*provider, "local-mirror");
        assert!(reason.contains("BAD.csv") && reason.contains("line 3") && reason.contains("'ten'"), "{reason}");
    }

    #[tokio::test]
    async fn csv_mirror_header_without_date_or_close_is_invalid_data() {
        let error = mirror().daily_closes("NOHEADER", TimeRange::OneMonth).await.expect_err("no header");

        assert!(
            matches!(error, PriceHistoryError::InvalidData { ref reason, .. } if reason.contains("NOHEADER.csv")),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn csv_mirror_rejects_path_like_symbols_before_touching_the_disk() {
        for symbol in ["../prices/AAPL", "prices/AAPL", "AAPL\0"] {
            let error = mirror().daily_closes(symbol, TimeRange::OneMonth).await.expect_err("invalid");
            assert!(matches!(error, PriceHistoryError::InvalidSymbol { .. }), "{symbol}: {error:?}");
        }
    }

    #[test]
    fn csv_parsing_reports_each_kind_of_malformed_line() {
        let path = Path::new("X.csv");
        for (text, expected) in [
            ("Date,Close\n2024-01-02\n", "line 2: 1 fields"),
            ("Date,Close\n2024-01-02,1\n02/01/2024,2\n", "line 3: '02/01/2024' is not a YYYY-MM-DD date"),
            ("Date,Close\n2024-01-02,1,3\n", "line 2: 3 fields"),
        ] {
            let error = parse_price_csv(path, text).expect_err(text);
            assert!(error.to_string().contains(expected), "{error}");
        }
        assert_eq!(parse_price_csv(path, "").expect("empty"), Vec::new());
        assert_eq!(
            parse_price_csv(path, "close,date\n1.5,2024-01-02\n").expect("reordered"),
            vec![PricePoint { date: date!(2024 - 01 - 02), close: 1.5 }]
        );
    }
}
