//! The market analysis: the instruments a query names, their prices and the benchmark's, and the
//! statistics, findings and summary computed from them.

use serde_json::{Value, json};

use super::{Progress, QuantService, RISK_FREE_RATE, Run, closes_if_known, statements_failure, unavailable};
use crate::domain::auth::Principal;
use crate::domain::quant::market::{
    InstrumentStatistics, PriceSeries, TimeRange, correlation_matrix, instrument_statistics, market_findings,
    parse_market_query,
};
use crate::domain::quant::narrative::narrate_market;
use crate::domain::quant::report::{finding_json, metric_json};
use crate::domain::quant::request::{
    MAX_INSTRUMENTS, MAX_MARKET_QUERY_CHARS, MarketRequest, QuantError, validate_deal_id,
};
use crate::domain::quant::runs::{AnalysisKind, AnalysisRecord};
use crate::ports::financial_data::{CompanyQuery, FinancialDataError};

/// A validated market request with its price series fetched: nothing is stored before this point.
pub struct PreparedMarket {
    caller: Principal,
    request: MarketRequest,
    instruments: Vec<PriceSeries>,
    benchmark: Option<PriceSeries>,
    /// How each instrument was found in the query (ticker, sector phrase, company name).
    resolution: Vec<Value>,
}

impl QuantService {
    /// Finds the instruments of the query (tickers, sector and market phrases through the ETF
    /// table, else a company name) and fetches their prices and the benchmark's.
    ///
    /// # Errors
    /// [`QuantError::Validation`] (no instrument, unknown symbol), [`QuantError::UnknownCompany`],
    /// [`QuantError::ProviderUnavailable`], [`QuantError::NotConfigured`] — and nothing is stored.
    pub async fn prepare_market(
        &self,
        caller: Principal,
        request: MarketRequest,
    ) -> Result<PreparedMarket, QuantError> {
        let query = request.query.trim();
        if query.is_empty() || query.chars().count() > MAX_MARKET_QUERY_CHARS {
            return Err(QuantError::Validation {
                field: "query",
                message: format!("must be 1-{MAX_MARKET_QUERY_CHARS} characters"),
            });
        }
        validate_deal_id(request.deal_id)?;
        let prices = self.prices.as_ref().ok_or(QuantError::NotConfigured)?;
        let parsed = parse_market_query(query);
        let mut resolution: Vec<Value> =
            parsed.tickers.iter().map(|t| json!({ "symbol": t, "found_as": "ticker" })).collect();
        resolution.extend(parsed.sectors.iter().map(|s| {
            json!({ "symbol": s.etf, "found_as": "sector", "phrase": s.matched_text, "description": s.description })
        }));
        let mut symbols = parsed.symbols();
        if symbols.is_empty() && !parsed.remaining_words.is_empty() {
            // A company name: the remaining words together, else each capitalised word on its own
            // ("how has Apple done" → "Apple"); the first that names exactly one company wins.
            let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
            let whole = parsed.remaining_words.join(" ");
            let names = std::iter::once(whole).chain(
                parsed.remaining_words.iter().filter(|w| w.chars().next().is_some_and(char::is_uppercase)).cloned(),
            );
            for name in names {
                match financial.resolve(&CompanyQuery::new(name, None)).await {
                    Ok(company) => {
                        let Some(ticker) = company.ticker.clone() else {
                            return Err(QuantError::Validation {
                                field: "query",
                                message: format!("{} has no listed ticker", company.name),
                            });
                        };
                        resolution.push(json!({ "symbol": ticker, "found_as": "company", "company": company.name, "cik": company.cik }));
                        symbols.push(ticker);
                        break;
                    }
                    Err(FinancialDataError::UnknownCompany { .. }) => continue,
                    Err(FinancialDataError::Ambiguous { candidates, query }) => {
                        return Err(QuantError::UnknownCompany {
                            message: format!("'{query}' matches several companies: name one, or give its ticker"),
                            candidates,
                        });
                    }
                    Err(other) => return Err(unavailable(statements_failure(&other))),
                }
            }
        }
        if symbols.is_empty() {
            return Err(QuantError::Validation {
                field: "query",
                message: "names no ticker (AAPL, $MSFT), sector (semiconductors, high yield) or company".into(),
            });
        }
        if symbols.len() > MAX_INSTRUMENTS {
            return Err(QuantError::Validation {
                field: "query",
                message: format!("names {} instruments; at most {MAX_INSTRUMENTS} are compared", symbols.len()),
            });
        }
        // All series at once (a remote provider's latency is paid once, not per symbol); failures are
        // then reported in the query's order, the benchmark's last.
        let fetches = symbols
            .iter()
            .chain(std::iter::once(&self.benchmark))
            .map(|symbol| closes_if_known(prices.as_ref(), symbol, request.time_range));
        let mut fetched = futures_util::future::join_all(fetches).await.into_iter();
        let mut instruments = Vec::with_capacity(symbols.len());
        for (symbol, series) in symbols.iter().zip(fetched.by_ref()) {
            instruments.push(series.map_err(unavailable)?.ok_or_else(|| QuantError::Validation {
                field: "query",
                message: format!("{symbol} has no price history at {}", prices.provider()),
            })?);
        }
        let benchmark = fetched.next().transpose().map_err(unavailable)?.flatten();
        Ok(PreparedMarket { caller, request, instruments, benchmark, resolution })
    }

    pub(super) async fn run_market(
        &self,
        prepared: PreparedMarket,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedMarket { caller, request, instruments, benchmark, resolution } = prepared;
        let symbols: Vec<String> = instruments.iter().map(|s| s.symbol().to_owned()).collect();
        let run = Run {
            caller,
            kind: AnalysisKind::Market,
            body: json!({ "query": request.query, "time_range": request.time_range.as_str(), "deal_id": request.deal_id }),
            deal_id: request.deal_id,
            subject: format!("market analysis of {}", symbols.join(", ")),
            analysis_type: "market".into(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        step("compute", 50, format!("computing statistics over {}", request.time_range.as_str()));
        let range = request.time_range;
        let benchmark_stats =
            benchmark.as_ref().and_then(|b| instrument_statistics(b, None, range, RISK_FREE_RATE).ok());
        let mut missing = Vec::new();
        let stats: Vec<InstrumentStatistics> = instruments
            .iter()
            .filter_map(|series| {
                instrument_statistics(series, benchmark.as_ref(), range, RISK_FREE_RATE)
                    .map_err(|e| missing.push(format!("{}: {e}", series.symbol())))
                    .ok()
            })
            .collect();
        let mut all_series = instruments.clone();
        all_series.extend(benchmark.iter().cloned());
        let prices = price_windows(&all_series, range);
        let correlations =
            correlation_matrix(&all_series, range).map_err(|e| missing.push(format!("correlation: {e}"))).ok();
        step("rate", 75, "ranking and comparing".into());
        let findings: Vec<Value> = market_findings(&stats, benchmark_stats.as_ref()).iter().map(finding_json).collect();
        step("narrate", 90, "writing the summary".into());
        let summary = narrate_market(&stats, benchmark_stats.as_ref(), range);
        let metrics: Vec<Value> = stats
            .iter()
            .chain(benchmark_stats.iter())
            .flat_map(|s| s.metrics.iter().map(|m| metric_json(m, None, Some(&s.symbol))))
            .collect();
        let result = json!({
            "summary": summary,
            "findings": findings,
            "metrics": metrics,
            "data": {
                "query": request.query,
                "time_range": range.as_str(),
                "instruments": resolution,
                "benchmark": self.benchmark,
                "statistics": stats,
                "benchmark_statistics": benchmark_stats,
                "correlation": correlations,
                "prices": prices,
                "missing_inputs": missing,
                "methodology": [
                    "Windows in trading days: 1M 21, 3M 63, 6M 126, 1Y 252, 5Y 1260; annualisation 252.",
                    "prices: each instrument's window of daily adjusted closes as [date, close] pairs, the inputs of its statistics.",
                    "Volatility: sample standard deviation of log returns x sqrt(252).",
                    "Beta and correlation on simple returns between dates both series have.",
                    "Historical VaR/CVaR: nearest rank k = ceil((1-alpha) n); Sharpe and Sortino over a zero rate.",
                ],
            },
        });
        self.end(started, Ok(result), &step).await
    }
}

/// Each series' window of closes — the prices its statistics were computed from — as compact
/// `[date, close]` pairs, so that every figure of the result can be checked against its inputs
/// and drawn.
fn price_windows(series: &[PriceSeries], range: TimeRange) -> Vec<Value> {
    series
        .iter()
        .map(|series| {
            let closes: Vec<Value> =
                series.window(range).iter().map(|point| json!([point.date.to_string(), point.close])).collect();
            json!({ "symbol": series.symbol(), "closes": closes })
        })
        .collect()
}
