//! Private borrowers: analyses from the statements the caller supplies (no SEC filings, no
//! market-data source configured), with every figure traced to "supplied by caller", and the
//! checks that refuse a set that does not hold together before anything is stored.

use serde_json::{Value, json};

use crate::cdm_events;
use crate::helpers::*;

/// A fiscal year in thousands: assets 10,000 = liabilities 6,000 + equity 4,000.
fn year(end: &str, revenue: f64, ebit: f64) -> Value {
    json!({
        "period_end": end, "months": 12,
        "revenue": revenue, "operating_income": ebit, "depreciation_amortization": 400.0,
        "interest_expense": 300.0, "income_tax": 250.0, "net_income": 900.0,
        "cash": 800.0, "current_assets": 4000.0, "total_assets": 10000.0,
        "current_liabilities": 2500.0, "total_liabilities": 6000.0, "total_debt": 3500.0,
        "total_equity": 4000.0, "retained_earnings": 2200.0,
        "operating_cash_flow": 1300.0, "capital_expenditure": 500.0, "scheduled_principal": 700.0
    })
}

fn interim(end: &str, months: u32, revenue: f64, ebit: f64) -> Value {
    let mut period = year(end, revenue, ebit);
    period["months"] = json!(months);
    period["depreciation_amortization"] = json!(300.0);
    period
}

pub(crate) fn financials() -> Value {
    json!({
        "currency": "USD",
        "unit": 1000,
        "periods": [
            year("2022-12-31", 11000.0, 1400.0),
            interim("2023-09-30", 9, 8000.0, 1000.0),
            year("2023-12-31", 12000.0, 1500.0),
            interim("2024-09-30", 9, 9500.0, 1300.0),
        ]
    })
}

fn metric<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["metrics"].as_array().expect("metrics").iter().find(|m| m["name"] == name).unwrap_or(&Value::Null)
}

#[tokio::test]
async fn a_private_company_is_analysed_from_its_supplied_statements() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;

    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Northwind Tools GmbH", "analysis_type": "financial", "financials": financials() }),
        )
        .await;

    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    let result = &body["result"];
    assert_eq!(result["data"]["company"]["statements_source"], "supplied");
    assert!(result["summary"].as_str().is_some_and(|s| s.contains("Revenue was USD 12.0 m.")), "{result}");
    // Z' (private firms) on the latest fiscal year, by hand: X1 = (4,000 - 2,500) / 10,000,
    // X2 = 2,200 / 10,000, X3 = 1,500 / 10,000, X4 = 4,000 / 6,000, X5 = 12,000 / 10,000.
    let altman = metric(result, "altman_z");
    let expected = 0.717 * 0.15 + 0.847 * 0.22 + 3.107 * 0.15 + 0.420 * (4.0 / 6.0) + 0.998 * 1.2;
    assert!((altman["value"].as_f64().expect("z") - expected).abs() < 1e-9, "{altman}");
    assert!(altman["formula"].as_str().is_some_and(|f| f.starts_with("0.717")), "{altman}");
    // Leverage on the stated total debt and EBITDA = EBIT + D&A, in units (unit 1000).
    assert_eq!(metric(result, "debt_to_ebitda")["value"], json!(3_500_000.0 / 1_900_000.0));
    // TTM = FY2023 + 9M 2024 - 9M 2023: revenue 12,000 + 9,500 - 8,000 = 13,500 (thousands).
    assert_eq!(metric(result, "ttm_revenue")["value"], json!(13_500_000.0));
    let missing = result["data"]["missing_inputs"].to_string();
    assert!(missing.contains("not listed"), "market-based measures are said to be omitted: {missing}");
    let provenance = result["data"]["provenance"].as_array().expect("provenance");
    assert!(!provenance.is_empty() && provenance.iter().all(|p| p["source"] == "supplied by caller"));

    let id = body["analysis_id"].as_str().expect("id");
    let stored: Value =
        app.get(&format!("/api/quantitative-analysis/results/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(stored["status"], "completed");
    assert_eq!(stored["request"]["financials"][0]["period_end"], "2024-09-30", "{stored}");
}

#[tokio::test]
async fn a_loan_to_a_private_borrower_is_assessed_on_its_own_schedule() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;

    let response = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Northwind Tools GmbH", "loan_amount": 2_000_000.0, "financials": financials() }),
        )
        .await;

    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    cdm_events::record(&body);
    let dscr = metric(&body["result"], "pro_forma_dscr");
    let existing =
        dscr["inputs"].as_array().expect("inputs").iter().find(|i| i["name"] == "existing_scheduled_principal");
    assert_eq!(existing.expect("input")["value"], json!(700_000.0), "{dscr}");
    assert!(body["result"]["data"]["loan"]["recommendation"].is_string());
    assert_eq!(body["result"]["data"]["borrower"]["name"], "Northwind Tools GmbH");
}

#[tokio::test]
async fn statements_that_do_not_hold_together_are_400_naming_the_period_and_nothing_is_stored() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let mut unbalanced = financials();
    unbalanced["periods"][2]["total_equity"] = json!(3000.0);
    let mut negative = financials();
    negative["periods"][0]["revenue"] = json!(-1.0);
    let mut shuffled = financials();
    shuffled["periods"].as_array_mut().expect("periods").swap(0, 2);
    let mut euro = financials();
    euro["currency"] = json!("EUR");
    let mut unknown_line = financials();
    unknown_line["periods"][0]["sales"] = json!(1.0);

    for (path, body, field) in [
        ("company", json!({ "company_name": "N", "financials": unbalanced }), "financials.periods[2].total_assets"),
        ("company", json!({ "company_name": "N", "financials": negative }), "financials.periods[0].revenue"),
        ("company", json!({ "company_name": "N", "financials": shuffled }), "financials.periods[0]"),
        ("company", json!({ "company_name": "N", "ticker": "NWT", "financials": financials() }), "ticker"),
        (
            "company",
            json!({ "company_name": "N", "analysis_type": "market", "financials": financials() }),
            "analysis_type",
        ),
        ("loan-application", json!({ "borrower_name": "N", "loan_amount": 1e6, "financials": euro }), "financials"),
    ] {
        let response = app.post(&format!("/api/quantitative-analysis/{path}"), Some(&token), &body).await;
        let error = assert_error(response, 400).await;
        assert_eq!(error["detail"]["field"], field, "{error}");
    }
    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "N", "financials": unknown_line }),
        )
        .await;
    let error = assert_error(response, 400).await;
    assert!(error.to_string().contains("sales"), "the unknown line is named: {error}");

    let listed: Value = app.get("/api/quantitative-analysis/results", Some(&token)).await.json().await.expect("json");
    assert_eq!(listed["total"], 0, "nothing half-written is stored");
}

#[tokio::test]
async fn a_stored_statement_set_is_owned_named_by_analyses_and_found_through_its_deal() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let other = app.token_for("analyst").await;

    let created = app
        .post(
            "/api/financial-statements",
            Some(&token),
            &json!({ "borrower_name": "Northwind Tools GmbH", "deal_id": 77, "financials": financials() }),
        )
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    let id = created["statement_set_id"].as_str().expect("id").to_owned();
    assert_eq!(created["periods"][0]["period_end"], "2024-09-30");
    assert_eq!(created["periods"][0]["revenue"], json!(9_500_000.0), "in units of the currency");

    let read: Value =
        app.get(&format!("/api/financial-statements/{id}"), Some(&token)).await.json().await.expect("json");
    assert_eq!(read, created);
    let foreign = app.get(&format!("/api/financial-statements/{id}"), Some(&other)).await;
    assert_error(foreign, 404).await;

    // By id, in a company analysis.
    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Northwind Tools GmbH", "analysis_type": "risk", "statement_set_id": id }),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(metric(&body["result"], "ttm_revenue")["value"], json!(13_500_000.0));
    // Someone else's set cannot be used.
    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&other),
            &json!({ "company_name": "Northwind Tools GmbH", "statement_set_id": id }),
        )
        .await;
    assert_eq!(assert_error(response, 400).await["detail"]["field"], "statement_set_id");

    // Through the deal: the borrower has no filings (no market-data source at all here).
    let response = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Northwind Tools GmbH", "loan_amount": 1_000_000.0, "deal_id": 77 }),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["result"]["data"]["borrower"]["statements_source"], "supplied");
    // Another deal has no set: the borrower cannot be analysed.
    let response = app
        .post(
            "/api/quantitative-analysis/loan-application",
            Some(&token),
            &json!({ "borrower_name": "Northwind Tools GmbH", "loan_amount": 1_000_000.0, "deal_id": 78 }),
        )
        .await;
    // No set and no market-data source: the service says the source is missing.
    assert_error(response, 503).await;

    let mut unbalanced = financials();
    unbalanced["periods"][0]["total_assets"] = json!(20000.0);
    let refused = app
        .post("/api/financial-statements", Some(&token), &json!({ "borrower_name": "N", "financials": unbalanced }))
        .await;
    assert_eq!(assert_error(refused, 400).await["detail"]["field"], "financials.periods[0].total_assets");
}

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// Two fiscal years as an analyst's workbook has them: in thousands, newest on the left, dated
/// headers, label variants, one row the service does not know.
fn workbook(equity_2023: f64) -> Vec<u8> {
    use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet().set_name("Financials").expect("sheet");
    let dated = Format::new().set_num_format("mmm d, yyyy");
    sheet.write_string(0, 0, "Northwind Tools GmbH (EUR in thousands)").expect("title");
    for (col, year) in [(1, 2023), (2, 2022)] {
        let end = ExcelDateTime::from_ymd(year, 12, 31).expect("date");
        sheet.write_datetime_with_format(2, col, &end, &dated).expect("header");
    }
    let rows: [(&str, [f64; 2]); 13] = [
        ("Net sales", [12_000.0, 11_000.0]),
        ("Operating profit", [1_500.0, 1_400.0]),
        ("Depreciation and amortisation", [400.0, 380.0]),
        ("Interest expense", [300.0, 310.0]),
        ("Net income", [900.0, 850.0]),
        ("Cash and cash equivalents", [800.0, 700.0]),
        ("Total current assets", [4_000.0, 3_800.0]),
        ("Total assets", [10_000.0, 9_500.0]),
        ("Total current liabilities", [2_500.0, 2_400.0]),
        ("Total liabilities", [6_000.0, 5_700.0]),
        ("Total borrowings", [3_500.0, 3_400.0]),
        ("Total shareholders' equity", [equity_2023, 3_800.0]),
        ("Headcount", [120.0, 110.0]),
    ];
    for (offset, (label, values)) in rows.iter().enumerate() {
        let row = 3 + u32::try_from(offset).expect("row");
        sheet.write_string(row, 0, *label).expect("label");
        sheet.write_number(row, 1, values[0]).expect("value");
        sheet.write_number(row, 2, values[1]).expect("value");
    }
    workbook.save_to_buffer().expect("xlsx")
}

#[tokio::test]
async fn an_analysts_spreadsheet_is_read_checked_and_traced_to_its_cells() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;

    let xlsx = workbook(4_000.0);
    let parts = [
        FormPart::file("northwind.xlsx", XLSX, &xlsx),
        FormPart::text("borrower_name", "Northwind Tools GmbH"),
        FormPart::text("deal_id", "12"),
    ];
    let response = app.post_form("/api/financial-statements", &token, &parts).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["currency"], "EUR", "{body}");
    assert_eq!(body["periods"][0]["period_end"], "2023-12-31");
    assert_eq!(body["periods"][0]["revenue"], json!(12_000_000.0), "in thousands: {body}");
    assert_eq!(body["unrecognised"][0]["label"], "Headcount", "{body}");
    assert!(body["recognised"].as_array().is_some_and(|r| r.len() == 12), "{body}");

    // The company analysis traces each figure to its cell.
    let id = body["statement_set_id"].as_str().expect("id");
    let response = app
        .post(
            "/api/quantitative-analysis/company",
            Some(&token),
            &json!({ "company_name": "Northwind Tools GmbH", "analysis_type": "financial", "statement_set_id": id }),
        )
        .await;
    assert_eq!(response.status(), 200);
    let analysis: Value = response.json().await.expect("json");
    let provenance = analysis["result"]["data"]["provenance"].as_array().expect("provenance");
    let revenue =
        provenance.iter().find(|p| p["line"] == "revenue" && p["period_end"] == "2023-12-31").expect("revenue");
    assert_eq!(revenue["source"], "northwind.xlsx!Financials!B4");

    // A CSV with the currency given in the form.
    let csv = "Line item,FY2023\nRevenue,1200\nOperating income,150\nInterest expense,30\nNet income,90\nCash,80\nCurrent assets,400\nTotal assets,1000\nCurrent liabilities,250\nTotal liabilities,600\nTotal debt,350\nTotal equity,400\n";
    let parts = [
        FormPart::file("n.csv", "text/csv", csv.as_bytes()),
        FormPart::text("borrower_name", "Northwind"),
        FormPart::text("currency", "USD"),
    ];
    let response = app.post_form("/api/financial-statements", &token, &parts).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    assert!(body["assumptions"].to_string().contains("December 31"), "the assumed year end is said: {body}");

    // An unbalanced sheet names its column; bytes that are not the declared type are 415; a
    // broken workbook is 422; and nothing is stored for any of them.
    let unbalanced = workbook(3_000.0);
    let parts = [FormPart::file("n.xlsx", XLSX, &unbalanced), FormPart::text("borrower_name", "N")];
    let error = assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 400).await;
    assert!(error["detail"]["field"].as_str().is_some_and(|f| f.starts_with("column B")), "{error}");
    let parts = [FormPart::file("n.xlsx", XLSX, csv.as_bytes()), FormPart::text("borrower_name", "N")];
    assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 415).await;
    let truncated = &xlsx[..xlsx.len() / 2];
    let parts = [FormPart::file("n.xlsx", XLSX, truncated), FormPart::text("borrower_name", "N")];
    assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 422).await;
    let parts = [FormPart::file("n.csv", "text/csv", csv.as_bytes()), FormPart::text("borrower_name", "N")];
    let error = assert_error(app.post_form("/api/financial-statements", &token, &parts).await, 400).await;
    assert_eq!(error["detail"]["field"], "currency", "{error}");
}

#[tokio::test]
async fn a_sheet_labelled_as_statements_are_published_is_read_and_a_missing_item_names_the_rows_not_read() {
    let app = spawn_app().await;
    let token = app.token_for("analyst").await;
    let upload = |csv: &'static str| {
        [
            FormPart::file("published.csv", "text/csv", csv.as_bytes()),
            FormPart::text("borrower_name", "Northwind"),
            FormPart::text("currency", "USD"),
        ]
    };

    // Qualifiers that leave the figure unchanged are read.
    let published = "Line item,FY2023\n\"Revenue, net\",1200\nOperating income (EBIT),150\nInterest expense,30\nNet income (loss),90\nCash and cash equivalents,80\nTotal current assets,400\nTotal assets,1000\nTotal current liabilities,250\nTotal liabilities,600\nTotal debt (including current portion),350\nTotal equity,400\n";
    let response = app.post_form("/api/financial-statements", &token, &upload(published)).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    let period = &body["periods"][0];
    assert_eq!(
        (&period["revenue"], &period["operating_income"], &period["net_income"], &period["total_debt"]),
        (&json!(1200.0), &json!(150.0), &json!(90.0), &json!(350.0)),
        "{body}"
    );
    assert_eq!(body["unrecognised"], json!([]), "{body}");

    // Operating income only before depreciation, interest only net: neither is read, and the 400
    // for the missing item names them, the row that looks like it first, and says why.
    let unread = "Line item,FY2023\n\"Revenue, net\",1200\nHeadcount,120\nOperating income before depreciation,190\n\"Interest expense, net\",30\nNet income (loss),90\nCash and cash equivalents,80\nTotal current assets,400\nTotal assets,1000\nTotal current liabilities,250\nTotal liabilities,600\nTotal debt,350\nTotal equity,400\n";
    let response = app.post_form("/api/financial-statements", &token, &upload(unread)).await;
    let error = assert_error(response, 400).await;
    assert_eq!(error["detail"]["field"], "column B (FY2023).operating_income", "{error}");
    let listed: Vec<(&Value, &Value)> = error["detail"]["unrecognised"]
        .as_array()
        .expect("unrecognised rows")
        .iter()
        .map(|row| (&row["row"], &row["label"]))
        .collect();
    assert_eq!(
        listed,
        [
            (&json!(4), &json!("Operating income before depreciation")),
            (&json!(3), &json!("Headcount")),
            (&json!(5), &json!("Interest expense, net")),
        ],
        "{error}"
    );
    assert_eq!(
        error["detail"]["unrecognised"][2]["reason"].as_str().map(|r| r.contains("interest income")),
        Some(true)
    );
    let message = error["message"].as_str().expect("message");
    assert!(
        message.contains("operating_income: is required")
            && message.contains("row 4 'Operating income before depreciation' looks like operating_income")
            && message.contains("row 3 'Headcount'"),
        "{message}"
    );
}
