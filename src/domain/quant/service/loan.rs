//! The loan application: the borrower's statements (filed, supplied, or the deal's stored set), the
//! terms of the agreements stored for its deal, and the pro-forma assessment read against them.

use serde_json::{Value, json};

use super::company::{NO_LISTED_SHARES, private_parts};
use super::{DEAL_AGREEMENTS, Progress, QuantService, Run, STATEMENT_YEARS, Subject, statements_failure, unavailable};
use crate::domain::auth::Principal;
use crate::domain::listing::listed_owner;
use crate::domain::quant::findings::FindingThresholds;
use crate::domain::quant::findings::loan_findings;
use crate::domain::quant::findings::margin_findings;
use crate::domain::quant::loan::{LoanPolicy, LoanRequest, Seniority, assess_loan};
use crate::domain::quant::narrative::narrate_loan;
use crate::domain::quant::report::{metric_json, provenance_json, statement_json};
use crate::domain::quant::request::{
    CompanyAnalysisType, CompanyRequest, LoanApplication, MAX_LOAN_AMOUNT, QuantError,
};
use crate::domain::quant::runs::{AnalysisKind, AnalysisRecord};
use crate::domain::quant::statements::CompanyFinancials;
use crate::domain::statements::analysis::{self as supplied};
use crate::domain::statements::stored::StatementSetRecord;
use crate::ports::financial_data::{
    FinancialDataError, ResolvedCompany, STATEMENTS_CURRENCY, StatementsWithProvenance,
};

/// The loan amount's currency. Filed statements are in it ([`STATEMENTS_CURRENCY`]) and supplied
/// ones must be, since pro-forma leverage adds the loan to the statements' debt.
const LOAN_CURRENCY: &str = STATEMENTS_CURRENCY;

/// A validated loan application with the borrower's statements: nothing is stored before this point.
pub struct PreparedLoan {
    caller: Principal,
    application: LoanApplication,
    /// Facility terms of the agreements stored for the application's deal.
    deal_terms: Vec<Value>,
    subject: Subject,
    financials: CompanyFinancials,
    /// Where every statement figure came from.
    provenance: Vec<Value>,
}

impl QuantService {
    /// The newest statement set stored for the deal that the caller may use.
    async fn deal_statement_set(
        &self,
        caller: Principal,
        deal_id: i64,
    ) -> Result<Option<StatementSetRecord>, QuantError> {
        match &self.statement_sets {
            Some(sets) => Ok(sets.latest_for_deal(caller, deal_id).await?),
            None => Ok(None),
        }
    }

    /// The facility terms of the agreements stored for `deal_id` that the caller may see (their
    /// own documents; all for administrators): `[{document_id, title, version, facilities:[…]}]`.
    async fn deal_terms(&self, caller: Principal, deal_id: i64) -> Result<Vec<Value>, QuantError> {
        let Some(documents) = &self.documents else { return Ok(Vec::new()) };
        let owner = listed_owner(caller);
        let mut terms = Vec::new();
        for current in documents.current_agreements(deal_id, owner, DEAL_AGREEMENTS).await? {
            let facilities: Vec<Value> = current.agreement["facilities"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| {
                    json!({
                        "name": f["name"],
                        "commitment": f["commitment"],
                        "floatingRateIndex": f["floatingRateIndex"],
                        "spread": f["spread"],
                        "floor": f["floor"],
                        "terminationDate": f["terminationDate"],
                    })
                })
                .collect();
            terms.push(json!({
                "document_id": current.id.get(),
                "title": current.title,
                "version": current.version,
                "facilities": facilities,
            }));
        }
        Ok(terms)
    }

    /// Validates the application, resolves the borrower and reads its statements.
    ///
    /// # Errors
    /// [`QuantError::Validation`] (amount, name, no public financials), [`QuantError::UnknownCompany`],
    /// [`QuantError::ProviderUnavailable`], [`QuantError::NotConfigured`] — and nothing is stored.
    pub async fn prepare_loan(
        &self,
        caller: Principal,
        application: LoanApplication,
    ) -> Result<PreparedLoan, QuantError> {
        if !(application.loan_amount.is_finite() && application.loan_amount > 0.0) {
            return Err(QuantError::Validation { field: "loan_amount", message: "must be a positive amount".into() });
        }
        if application.loan_amount > MAX_LOAN_AMOUNT {
            return Err(QuantError::Validation {
                field: "loan_amount",
                message: format!("must be at most {MAX_LOAN_AMOUNT:.0} (USD 1 trillion)"),
            });
        }
        let subject = self
            .prepare_company(
                caller,
                CompanyRequest {
                    company_name: application.borrower_name.clone(),
                    ticker: None,
                    analysis_type: CompanyAnalysisType::Financial,
                    deal_id: application.deal_id,
                    financials: application.financials.clone(),
                    statement_set_id: application.statement_set_id,
                },
            )
            .await
            .map(|prepared| prepared.subject)
            .map_err(|error| match error {
                QuantError::Validation { field: "company_name", message } => {
                    QuantError::Validation { field: "borrower_name", message }
                }
                other => other,
            });
        let resolved = match subject {
            Ok(Subject::Listed(company)) => self.listed_annual_statements(&company).await.map(|statements| {
                let provenance = provenance_json(&statements);
                (Subject::Listed(company), statements.financials, provenance)
            }),
            Ok(Subject::Private { name, statements }) => Ok(private_parts(name, statements)),
            Err(error) => Err(error),
        };
        // A borrower without filings is read from the statement set stored for the deal, if any.
        let (subject, financials, provenance) = match resolved {
            Ok(parts) => parts,
            Err(
                error @ (QuantError::UnknownCompany { .. }
                | QuantError::NoPublicStatements { .. }
                | QuantError::NotConfigured),
            ) => {
                let stored = match application.deal_id {
                    Some(deal_id) => self.deal_statement_set(caller, deal_id).await?,
                    None => None,
                };
                match stored {
                    Some(record) => private_parts(application.borrower_name.trim().to_owned(), record.statements),
                    None => return Err(error),
                }
            }
            Err(error) => return Err(error),
        };
        if let Subject::Private { statements, .. } = &subject
            && statements.currency != LOAN_CURRENCY
        {
            return Err(QuantError::Validation {
                field: "financials",
                message: format!(
                    "currency must be USD, the loan amount's currency: pro-forma leverage adds the loan to the statements' debt (given {})",
                    statements.currency
                ),
            });
        }
        let deal_terms = match application.deal_id {
            Some(deal_id) => self.deal_terms(caller, deal_id).await?,
            None => Vec::new(),
        };
        Ok(PreparedLoan { caller, application, deal_terms, subject, financials, provenance })
    }

    /// A listed borrower's annual statements, refused when it files none.
    async fn listed_annual_statements(
        &self,
        company: &ResolvedCompany,
    ) -> Result<StatementsWithProvenance, QuantError> {
        let financial = self.financial.as_ref().ok_or(QuantError::NotConfigured)?;
        let statements = financial.annual_statements(company, STATEMENT_YEARS).await.map_err(|error| match error {
            FinancialDataError::NoStatements { company, reason, .. } => QuantError::NoPublicStatements {
                message: format!(
                    "{company} has no public annual financial statements ({reason}): supply the borrower's statements as financials"
                ),
            },
            other => unavailable(statements_failure(&other)),
        })?;
        if statements.financials.years().is_empty() {
            return Err(QuantError::NoPublicStatements {
                message: format!(
                    "{} has no public annual financial statements: supply the borrower's statements as financials",
                    company.name
                ),
            });
        }
        Ok(statements)
    }

    pub(super) async fn run_loan(
        &self,
        prepared: PreparedLoan,
        request_id: &str,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<AnalysisRecord, QuantError> {
        let PreparedLoan { caller, application, deal_terms, subject, financials, provenance } = prepared;
        let run = Run {
            caller,
            kind: AnalysisKind::LoanApplication,
            body: json!({
                "borrower_name": application.borrower_name,
                "loan_amount": application.loan_amount,
                "loan_type": application.loan_type.as_str(),
                "deal_id": application.deal_id,
                "financials": match &subject {
                    Subject::Private { statements, .. } => Some(supplied::periods_json(statements)),
                    Subject::Listed(_) => None,
                },
            }),
            deal_id: application.deal_id,
            subject: format!("loan application of {}", subject.name()),
            analysis_type: "loan_application".into(),
        };
        let started = self.begin(run, request_id, progress).await?;
        let step = |step, percent, message: String| progress(Progress::Step { step, percent, message });
        step("compute", 50, "pro-forma ratios, grade, capital and price".into());
        let computed = LoanRequest::new(application.loan_amount, application.loan_type, Seniority::SeniorUnsecured)
            .map(|request| assess_loan(&financials, request, &LoanPolicy::default()))
            .map_err(|e| ("loan assessment".to_owned(), e.to_string()));
        let computed = computed.map(|assessment| {
            step("rate", 75, "recommendation and findings".into());
            let mut findings: Vec<Value> = loan_findings(&assessment, &FindingThresholds::default(), Some(LOAN_CURRENCY))
                .iter()
                .filter_map(|f| serde_json::to_value(f).ok())
                .collect();
            // The spread the bank needs: the grade's, or the RAROC minimum when that is higher.
            let required_spread = assessment
                .price
                .as_ref()
                .map(|p| p.raroc_minimum_spread.map_or(p.grade_spread, |r| r.max(p.grade_spread)));
            findings.extend(margin_findings(&deal_terms, required_spread));
            step("narrate", 90, "writing the summary".into());
            let summary = narrate_loan(subject.name(), &application, LOAN_CURRENCY, &assessment);
            let mut missing_inputs = assessment.missing_inputs.clone();
            if matches!(subject, Subject::Private { .. }) {
                missing_inputs.push(NO_LISTED_SHARES.to_owned());
            }
            json!({
                "summary": summary,
                "findings": findings,
                "metrics": assessment.metrics.iter().map(|m| metric_json(m, Some(LOAN_CURRENCY), None)).collect::<Vec<_>>(),
                "data": {
                    "borrower": subject.json(),
                    "loan": {
                        "amount": application.loan_amount,
                        "currency": LOAN_CURRENCY,
                        "loan_type": application.loan_type.as_str(),
                        "seniority": "senior_unsecured",
                        "grade": assessment.grade.map(|g| g.to_string()),
                        "pd": assessment.pd,
                        "recommendation": serde_json::to_value(assessment.recommendation).ok(),
                        "assessment": assessment,
                        "deal_terms": deal_terms,
                    },
                    "statements": financials.years().iter().map(statement_json).collect::<Vec<_>>(),
                    "provenance": provenance,
                    "methodology": assessment.methodology,
                    "missing_inputs": missing_inputs,
                },
            })
        });
        self.end(started, computed, &step).await
    }
}
