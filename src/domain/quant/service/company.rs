//! The company analysis: whose statements it reads (a listed company's SEC filings or the
//! statements supplied for a private borrower), what it fetches, and what it computes.

use serde_json::{Value, json};

use super::{
    PRICE_RANGE, Progress, QuantService, RISK_FREE_RATE, Run, STATEMENT_QUARTERS, STATEMENT_YEARS, Step,
    closes_if_known, statements_failure, unavailable,
};
use crate::domain::auth::Principal;
use crate::domain::quant::credit::{MarketInputs, analyse_credit};
use crate::domain::quant::findings::{FindingThresholds, credit_findings};
use crate::domain::quant::market::{InstrumentStatistics, PriceSeries, instrument_statistics, market_findings};
use crate::domain::quant::narrative::narrate;
use crate::domain::quant::quarterly::{QUARTERS_METHOD, TTM_METHOD, TrailingTwelveMonths, trailing_twelve_months};
use crate::domain::quant::report::{finding_json, metric_json, provenance_json, quarterly_json, statement_json};
use crate::domain::quant::request::{
    CompanyAnalysisType, CompanyRequest, MAX_COMPANY_NAME_CHARS, QuantError, validate_deal_id,
};
use crate::domain::quant::runs::{AnalysisKind, AnalysisRecord};
use crate::domain::quant::statements::{CompanyFinancials, FiscalYearStatement};
use crate::domain::statements::analysis::{self as supplied, SUPPLIED_TTM_METHOD};
use crate::domain::statements::service::StatementSetError;
use crate::domain::statements::stored::{StatementSetId, StatementSetRecord};
use crate::domain::statements::{StatementSet, check_input};
use crate::ports::financial_data::{
    CompanyQuery, CompanyStatements, FinancialDataError, ResolvedCompany, STATEMENTS_CURRENCY,
};

/// A validated request whose company is resolved: nothing is stored before this point.
pub struct PreparedCompany {
    pub(super) caller: Principal,
    pub(super) request: CompanyRequest,
    pub(super) subject: Subject,
}

/// Whose statements an analysis reads: a company's SEC filings, or the statements the caller
/// supplied for a private borrower.
pub enum Subject {
    Listed(ResolvedCompany),
    Private { name: String, statements: StatementSet },
}

impl Subject {
    pub(super) fn name(&self) -> &str {
        match self {
            Subject::Listed(company) => &company.name,
            Subject::Private { name, .. } => name,
        }
    }

    pub(super) fn json(&self) -> Value {
        match self {
            Subject::Listed(company) => {
                json!({ "name": company.name, "cik": company.cik, "ticker": company.ticker, "statements_source": "SEC EDGAR" })
            }
            Subject::Private { name, statements } => json!({
                "name": name, "cik": null, "ticker": null,
                "statements_source": "supplied", "currency": statements.currency,
            }),
        }
    }
}

/// What the market-based measures need and a private borrower does not have.
pub(super) const NO_LISTED_SHARES: &str = "market-based measures (Merton distance to default, the 1968 market-value Altman Z, price statistics): omitted, the borrower's shares are not listed (statements supplied by the caller)";

/// A private borrower's subject, fiscal years and provenance.
pub(super) fn private_parts(name: String, statements: StatementSet) -> (Subject, CompanyFinancials, Vec<Value>) {
    let financials = supplied::fiscal_years(&name, &statements);
    let provenance = supplied::provenance(&statements);
    (Subject::Private { name, statements }, financials, provenance)
}

/// The statements and prices an analysis computes from, whoever supplied them.
struct Gathered {
    financials: Option<CompanyFinancials>,
    /// Where each statement figure came from.
    provenance: Option<Vec<Value>>,
    /// The periods the caller supplied, as given (scaled by their unit).
    supplied_periods: Option<Vec<Value>>,
    quarterly: Option<Value>,
    ttm: Option<Result<TrailingTwelveMonths, String>>,
    /// How the quarters and the trailing twelve months were read.
    ttm_method: &'static [&'static str],
    stock: Option<PriceSeries>,
    benchmark: Option<PriceSeries>,
}

/// Market capitalisation (last close × shares outstanding), volatility and return, for Merton.
fn market_inputs(
    latest: Option<&FiscalYearStatement>,
    stock: Option<&PriceSeries>,
    stats: &InstrumentStatistics,
) -> Option<MarketInputs> {
    let shares = latest?.shares_outstanding?;
    let last_close = stock?.points().last()?.close;
    Some(MarketInputs {
        equity_market_value: shares * last_close,
        equity_volatility: stats.value("annualised_volatility")?,
        equity_return: stats.value("period_return")?,
    })
}

impl QuantService {
    /// The stored set `id` when the caller may use it (their own; any for administrators).
    async fn statement_set(&self, caller: Principal, id: StatementSetId) -> Result<StatementSetRecord, QuantError> {
        let unusable = || QuantError::Validation {
            field: "statement_set_id",
            message: "no statement set with this id that you may use".into(),
        };
        let Some(sets) = &self.statement_sets else { return Err(unusable()) };
        sets.get(caller, id).await.map_err(|error| match error {
            StatementSetError::Store(error) => QuantError::Store(error),
            _ => unusable(),
        })
    }

    /// Validates the request and resolves the company.
    ///
    /// # Errors
    /// [`QuantError::Validation`], [`QuantError::UnknownCompany`], [`QuantError::NotConfigured`],
    /// [`QuantError::ProviderUnavailable`] — and nothing is stored.
    pub async fn prepare_company(
        &self,
        caller: Principal,
        request: CompanyRequest,
    ) -> Result<PreparedCompany, QuantError> {
        let name = request.company_name.trim();
        if name.is_empty() || name.chars().count() > MAX_COMPANY_NAME_CHARS {
            return Err(QuantError::Validation {
                field: "company_name",
                message: format!("must be 1-{MAX_COMPANY_NAME_CHARS} characters"),
            });
        }
        validate_deal_id(request.deal_id)?;
        if request.financials.is_some() && request.statement_set_id.is_some() {
            return Err(QuantError::Validation {
                field: "statement_set_id",
                message: "give financials or a statement_set_id, not both".into(),
            });
        }
        let supplied = match (&request.financials, request.statement_set_id) {
            (Some(financials), _) => Some(check_input(financials)?),
            (None, Some(id)) => Some(self.statement_set(caller, id).await?.statements),
            (None, None) => None,
        };
        if let Some(statements) = supplied {
            if request.analysis_type == CompanyAnalysisType::Market {
                return Err(QuantError::Validation {
                    field: "analysis_type",
                    message: "a market analysis reads share prices; supplied financials describe a borrower without listed shares".into(),
                });
            }
            if request.ticker.as_ref().is_some_and(|t| !t.trim().is_empty()) {
                return Err(QuantError::Validation {
                    field: "ticker",
                    message: "give either a ticker (the company's SEC filings are read) or financials (the statements supplied are read), not both".into(),
                });
            }
            let subject = Subject::Private { name: name.to_owned(), statements };
            return Ok(PreparedCompany { caller, request, subject });
        }
        let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
        let query = CompanyQuery::new(name, request.ticker.clone().filter(|t| !t.trim().is_empty()));
        let company = financial.resolve(&query).await.map_err(|error| match error {
            FinancialDataError::UnknownCompany { .. } => {
                QuantError::UnknownCompany { message: error.to_string(), candidates: Vec::new() }
            }
            FinancialDataError::Ambiguous { candidates, .. } => QuantError::UnknownCompany {
                message: format!("'{}' matches several companies: name one, or give its ticker", query.describe()),
                candidates,
            },
            other => unavailable(statements_failure(&other)),
        })?;
        Ok(PreparedCompany { caller, request, subject: Subject::Listed(company) })
    }

    /// Stores the run, computes it (reporting progress), and stores its outcome.
    ///
    /// # Errors
    /// [`QuantError::ProviderUnavailable`] (the run is stored as failed), [`QuantError::Store`].
    pub async fn run_company(
        &self,
        prepared: PreparedCompany,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedCompany { caller, request, subject } = prepared;
        let supplied_periods = match &subject {
            Subject::Private { statements, .. } => Some(supplied::periods_json(statements)),
            Subject::Listed(_) => None,
        };
        let body = json!({
            "company_name": request.company_name,
            "ticker": request.ticker,
            "analysis_type": request.analysis_type.as_str(),
            "deal_id": request.deal_id,
            "financials": supplied_periods,
        });
        let run = Run {
            caller,
            kind: AnalysisKind::Company,
            body,
            deal_id: request.deal_id,
            subject: format!("company analysis of {}", subject.name()),
            analysis_type: request.analysis_type.as_str().to_owned(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        let computed = self.compute(&subject, request.analysis_type, &step).await;
        self.end(started, computed, &step).await
    }

    /// The analysis itself; `Err((provider, reason))` when a provider fails.
    async fn compute(
        &self,
        subject: &Subject,
        analysis_type: CompanyAnalysisType,
        step: &Step<'_>,
    ) -> Result<Value, (String, String)> {
        let mut missing = Vec::new();
        let gathered = match subject {
            Subject::Listed(company) => self.gather_listed(company, analysis_type, &mut missing, step).await?,
            Subject::Private { name, statements } => {
                step("read_statements", 20, format!("reading the statements supplied for {name}"));
                missing.push(NO_LISTED_SHARES.to_owned());
                Gathered {
                    financials: Some(supplied::fiscal_years(name, statements)),
                    provenance: Some(supplied::provenance(statements)),
                    supplied_periods: Some(supplied::periods_json(statements)),
                    quarterly: None,
                    ttm: supplied::trailing_twelve_months(statements),
                    ttm_method: &[SUPPLIED_TTM_METHOD],
                    stock: None,
                    benchmark: None,
                }
            }
        };
        let Gathered { financials, provenance, supplied_periods, quarterly, ttm, ttm_method, stock, benchmark } =
            gathered;
        step("compute", 70, "computing ratios and market statistics".into());
        let benchmark_stats =
            benchmark.as_ref().and_then(|b| instrument_statistics(b, None, PRICE_RANGE, RISK_FREE_RATE).ok());
        let stock_stats = stock.as_ref().and_then(|s| {
            instrument_statistics(s, benchmark.as_ref(), PRICE_RANGE, RISK_FREE_RATE)
                .map_err(|e| missing.push(format!("market statistics: {e}")))
                .ok()
        });
        let credit = financials.as_ref().map(|f| {
            let market = stock_stats.as_ref().and_then(|stats| market_inputs(f.latest(), stock.as_ref(), stats));
            analyse_credit(f, market)
        });
        step("rate", 85, "rating and findings".into());
        let currency = match subject {
            Subject::Private { statements, .. } => statements.currency.as_str(),
            Subject::Listed(_) => STATEMENTS_CURRENCY,
        };
        let thresholds = FindingThresholds::default();
        let mut findings: Vec<Value> = credit
            .as_ref()
            .map(|c| {
                credit_findings(c, &thresholds, Some(currency))
                    .iter()
                    .filter_map(|f| serde_json::to_value(f).ok())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(stats) = &stock_stats {
            findings.extend(
                market_findings(std::slice::from_ref(stats), benchmark_stats.as_ref()).iter().map(finding_json),
            );
        }
        step("narrate", 95, "writing the summary".into());
        let computed_ttm = ttm.as_ref().and_then(|t| t.as_ref().ok());
        let summary = narrate(
            (subject.name(), Some(currency)),
            credit.as_ref(),
            computed_ttm,
            stock_stats.as_ref(),
            &self.benchmark,
        );
        let mut metrics: Vec<Value> = Vec::new();
        if let Some(credit) = &credit {
            metrics.extend(credit.metrics.iter().map(|m| metric_json(m, Some(currency), None)));
        }
        if let Some(ttm) = computed_ttm {
            metrics.extend(ttm.metrics.iter().map(|m| metric_json(m, Some(currency), None)));
        }
        if let Some(stats) = &stock_stats {
            // Price statistics are fractions and scores of prices in the quote currency: no amounts.
            metrics.extend(stats.metrics.iter().map(|m| metric_json(m, None, None)));
        }
        let mut methodology = credit.as_ref().map(|c| c.methodology.clone()).unwrap_or_default();
        let mut missing_inputs = credit.as_ref().map(|c| c.missing_inputs.clone()).unwrap_or_default();
        match &ttm {
            Some(Ok(ttm)) => {
                methodology.extend(ttm_method.iter().map(|m| (*m).to_owned()));
                missing_inputs.extend(ttm.missing_inputs.iter().cloned());
            }
            Some(Err(reason)) => {
                // The quarters were still read the way the first method says.
                methodology.extend(ttm_method.iter().take(1).map(|m| (*m).to_owned()));
                missing_inputs.push(format!("ttm_*: {reason}"));
            }
            None => {}
        }
        missing_inputs.extend(missing);
        Ok(json!({
            "summary": summary,
            "findings": findings,
            "metrics": metrics,
            "data": {
                "company": subject.json(),
                "analysis_type": analysis_type.as_str(),
                "statements": financials.as_ref().map(|f| f.years().iter().map(statement_json).collect::<Vec<_>>()),
                "supplied_periods": supplied_periods,
                "provenance": provenance,
                "quarterly": quarterly,
                "ttm": ttm.as_ref().map(|t| match t {
                    Ok(ttm) => json!(ttm),
                    Err(reason) => json!({ "computed": false, "reason": reason }),
                }),
                "credit": credit,
                "price_statistics": { "instrument": stock_stats, "benchmark": benchmark_stats },
                "methodology": methodology,
                "missing_inputs": missing_inputs,
            },
        }))
    }

    /// A listed company's statements (annual and quarterly, with TTM) and prices, as the analysis
    /// type needs them.
    async fn gather_listed(
        &self,
        company: &ResolvedCompany,
        analysis_type: CompanyAnalysisType,
        missing: &mut Vec<String>,
        step: &Step<'_>,
    ) -> Result<Gathered, (String, String)> {
        let fetched = if analysis_type.needs_statements() {
            step("fetch_statements", 20, format!("reading {}'s annual and quarterly statements", company.name));
            let financial =
                self.financial.as_ref().ok_or_else(|| ("market data".to_owned(), "not configured".to_owned()))?;
            let statements = financial
                .statements(company, STATEMENT_YEARS, STATEMENT_QUARTERS)
                .await
                .map_err(|e| statements_failure(&e))?;
            Some(statements)
        } else {
            None
        };
        let (annual, quarterly) = match fetched {
            Some(CompanyStatements { annual, quarterly }) => (Some(annual), Some(quarterly)),
            None => (None, None),
        };
        let (stock, benchmark) = if analysis_type.needs_prices() {
            step("fetch_prices", 45, "reading daily prices".into());
            self.fetch_prices(company, missing).await?
        } else {
            (None, None)
        };
        let ttm = quarterly.as_ref().map(|q| {
            let last_year_end = annual.as_ref().and_then(|s| s.financials.latest()).map(|y| y.fiscal_year_end);
            trailing_twelve_months(&q.statements, last_year_end)
        });
        Ok(Gathered {
            provenance: annual.as_ref().map(provenance_json),
            financials: annual.map(|a| a.financials),
            supplied_periods: None,
            quarterly: quarterly.as_ref().map(quarterly_json),
            ttm,
            ttm_method: &[QUARTERS_METHOD, TTM_METHOD],
            stock,
            benchmark,
        })
    }

    async fn fetch_prices(
        &self,
        company: &ResolvedCompany,
        missing: &mut Vec<String>,
    ) -> Result<(Option<PriceSeries>, Option<PriceSeries>), (String, String)> {
        let Some(prices) = &self.prices else {
            missing.push("prices: no price source is configured".into());
            return Ok((None, None));
        };
        let Some(ticker) = &company.ticker else {
            missing.push("prices: the company has no listed ticker".into());
            return Ok((None, None));
        };
        // A symbol the provider does not know leaves the market section out; it is not a failure.
        // Both series are fetched at once; the stock's failure is reported first.
        let (stock, benchmark) = futures_util::future::join(
            closes_if_known(prices.as_ref(), ticker, PRICE_RANGE),
            closes_if_known(prices.as_ref(), &self.benchmark, PRICE_RANGE),
        )
        .await;
        let (stock, benchmark) = (stock?, benchmark?);
        if stock.is_none() {
            missing.push(format!("prices: {} has no price history at {}", ticker, prices.provider()));
        }
        if benchmark.is_none() {
            missing.push(format!("prices: benchmark {} has no price history", self.benchmark));
        }
        Ok((stock, benchmark))
    }
}
