//! Pricing read end to end: the candidates a text states.

use super::*;
use crate::domain::extraction::facility_refs::FacilityKey;
use crate::domain::extraction::model::{CommitmentFee, DayCountFraction, FloatingRateIndex};

fn dec(raw: &str) -> Decimal {
    raw.parse().expect("test decimal")
}

fn pricing(text: &str) -> PricingCandidates {
    let doc = Document::scan(text);
    candidates(&doc)
}

#[test]
fn an_amendment_setting_a_margin_term_through_a_list_states_the_margin() {
    let text = "(b) The Applicable Loan Margin, from the First Amendment Date until delivery of the certificate required by Section 6.02, shall be as follows:\n\n(i) for LIBOR Loans, 2.25% per annum;\n\n(ii) for Base Rate Loans, 1.25% per annum.\n\n(c) The Commitment Fee Margin shall be 0.40% per annum.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0225")]);
    let base: Vec<Decimal> = found.base_spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(base, [dec("0.0125")]);
    // Raising the margin on default sets no margin.
    let default =
        "The Applicable Loan Margin shall be increased by 2.00% per annum while an Event of Default continues.\n";
    assert!(pricing(default).spreads.is_empty());
}

#[test]
fn a_margin_until_the_first_adjustment_date_is_a_margin_but_a_spread_adjustment_is_not() {
    let text = "\"Applicable Margin\" means, until the first Adjustment Date, 2.00% per annum, and thereafter the rate the Leverage Ratio sets.\n\n\"Term SOFR Adjustment\" means 0.10% per annum.\n\nEach Loan bears interest at Term SOFR plus the Term SOFR Adjustment plus the Applicable Margin.\n";
    let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.02")]);
}

#[test]
fn a_margin_for_a_period_the_agreement_names_is_not_the_facility_s_margin() {
    let text = "Each Loan bears interest at Term SOFR plus 2.00% per annum. During the Covenant Relief Period, the \
        Applicable Margin shall be 2.75% for Term SOFR Loans.\n";
    let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.02")]);
}

#[test]
fn a_rate_defined_as_another_name_for_a_benchmark_is_that_benchmark() {
    let text = "\"Reference Rate\" means the Term SOFR Rate in effect from time to time; provided that it shall not be less than zero.\n\n\"Default Rate\" means the Reference Rate plus 2.00%.\n\n\"Loan Rate\" means a rate per annum equal to the Reference Rate plus 2.85%.\n\nEach Loan bears interest at the Loan Rate.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0285")]);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    // A rate defined as a benchmark plus a margin is not another name for the benchmark.
    let own_rate = "\"Loan Rate\" means the Term SOFR Rate plus 2.85%.\n\nInterest accrues at the Loan Rate plus 2.00% after a default.\n";
    let doc = Document::scan(own_rate);
    assert!(doc.benchmarks.iter().all(|b| !doc.slice(b.span.clone()).contains("Loan Rate")));
}

#[test]
fn an_index_defined_as_the_prime_rate_is_the_prime_rate_the_margin_is_stated_over() {
    let text = "\"Index\" means the prime rate published from time to time in The Wall Street Journal.\n\nAdvances bear interest at a variable rate of one percentage point (1.00%) over the Index.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.01")]);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdPrime));
}

#[test]
fn a_minimum_of_the_whole_rate_is_not_a_second_margin() {
    let text = "\"Prime Rate\" means the prime rate published in The Wall Street Journal.\n\nInterest Rate: a rate equal to the Prime Rate in effect from time to time, plus 1.25% per annum; provided that the interest rate in effect on any day shall not be less than 6.00% per annum.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0125")]);
}

#[test]
fn the_level_named_for_the_first_period_gives_the_margin_in_force() {
    let text = "\"Applicable Margin\" means, from the Effective Date until the first Pricing Date, the rate set out in Level II below, and thereafter the rate set out below opposite the Leverage Ratio:\n\nLevel | Leverage Ratio | SOFR Loans | Base Rate Loans\nI | > 3.00:1.00 | 2.50% | 1.50%\nII | <= 3.00:1.00 | 2.25% | 1.25%\n\nEach Loan bears interest at Term SOFR plus the Applicable Margin.\n";
    let found = pricing(text);
    assert_eq!(found.grids.len(), 1);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0225")]);
    // The highest level named for a failure to deliver financials is not the margin in force.
    let penalty = text.replace(
        "from the Effective Date until the first Pricing Date, the rate set out in Level II below, and thereafter",
        "if the Borrower fails to deliver financial statements, the rate set out in Level I below, and otherwise",
    );
    assert!(pricing(&penalty).spreads.is_empty());
}

#[test]
fn the_margin_the_interest_clause_adds_to_the_benchmark_is_the_loans_margin() {
    let text = "\"Applicable Margin\" means 1.75%.\n\n\"Applicable Spread\" means 0.40% while the Facility Amount is below $50,000,000 and 0.30% thereafter.\n\nEach Loan shall bear interest at Term SOFR plus the Applicable Margin. The letter of credit fee is the Applicable Spread.\n";
    let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0175")]);
    // Without an interest clause naming either, both definitions state margins.
    let undecided = text.replace("plus the Applicable Margin", "plus a margin");
    assert_eq!(pricing(&undecided).spreads.len(), 3);
}

#[test]
fn margins_for_benchmark_and_base_rate_loans_are_told_apart() {
    let text = "\"Applicable Rate\" means, with respect to Term B Loans, (i) 3.00% per annum for Term SOFR Loans and (ii) 2.00% per annum for Base Rate Loans.\n";
    let found = pricing(text);
    assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.03")]);
    assert_eq!(found.base_spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.02")]);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
}

#[test]
fn a_term_sheet_rate_line_gives_index_spread_and_floor() {
    let text = "Interest Rate: Term SOFR + 4.00% per annum, subject to a Term SOFR floor of 1.00%.\n";
    let found = pricing(text);
    assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.04")]);
    assert_eq!(found.floors.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.01")]);
}

#[test]
fn a_rate_deemed_to_be_what_it_may_not_go_under_is_floored_there_but_not_by_a_base_rate_leg() {
    let floors = |text: &str| pricing(text).floors.iter().map(|s| *s.value.value()).collect::<Vec<_>>();
    let fed_funds = "\"Federal Funds Rate\" means the rate the reserve bank publishes; provided that if it would be \
        less than zero, such rate shall be deemed to be zero.\n\n";
    let benchmark = "\"Term SOFR\" means the forward rate published for the period; provided that if Term SOFR shall \
        be less than 0.75%, Term SOFR shall be deemed to be 0.75% for all purposes.\n";
    assert_eq!(floors(&format!("{fed_funds}{benchmark}")), [dec("0.0075")]);
    assert_eq!(floors(&benchmark.replace("0.75%", "zero")), [dec("0")]);
    // Two different figures state no floor.
    assert!(floors(&benchmark.replacen("0.75%", "1.00%", 1)).is_empty());
    assert!(floors(fed_funds).is_empty());
    let base_rate = "\"ABR\" means the greatest of the Prime Rate and Term SOFR plus 1%; if the ABR would be less \
        than 1.00%, such rate shall be deemed to be 1.00%.\n\n";
    assert_eq!(floors(&format!("{base_rate}{benchmark}")), [dec("0.0075")]);
}

#[test]
fn a_rate_added_on_top_of_the_margin_is_not_a_margin() {
    let text = "(a) Prime Rate Advances bear interest at the Prime Rate plus the Applicable Margin, provided that \
        principal not paid when due bears interest, payable on demand, at a rate equal to the lesser of (i) the Prime \
        Rate PLUS the Applicable Margin PLUS 3% and (ii) the Highest Lawful Rate.\n";
    let found = pricing(text);
    assert!(found.base_spreads.is_empty() && found.spreads.is_empty(), "{:?} {:?}", found.base_spreads, found.spreads);
}

#[test]
fn one_interest_period_named_as_a_fallback_or_a_reference_is_not_the_choice_of_periods() {
    let text = "If the Borrower does not specify an Interest Period, the Loans shall be continued as Term SOFR Loans with \
        an Interest Period of one month.\n\nEach drawing not reimbursed bears interest at the rate for Term SOFR Loans \
        for Interest Periods of one month.\n";
    assert!(pricing(text).interest_periods.is_empty(), "{:?}", pricing(text).interest_periods);
    let choice = "Each Term SOFR Loan has Interest Periods of one, three or six months, as the Borrower may select.\n";
    assert_eq!(pricing(choice).interest_periods.len(), 1, "the borrower's choice of periods is read");
}

#[test]
fn a_tenor_another_rate_is_interpolated_from_is_not_the_index_tenor() {
    let text = "The Bid Rate for each Bid Loan is determined by interpolating between SOFR and the one month Term SOFR \
        Rate for the term of such Bid Loan.\n";
    assert!(pricing(text).tenors.is_empty(), "{:?}", pricing(text).tenors);
}

#[test]
fn the_rate_on_sums_unpaid_at_their_due_date_is_not_a_margin() {
    for text in [
        "The advance carries a fixed rate of 6% per annum. Any installment not paid when due carries interest at \
         Term SOFR plus 5.00% until paid.\n",
        "The advance carries a fixed rate of 6% per annum. Sums past due, and all sums after maturity, accrue \
         interest at the Prime Rate plus 4%.\n",
    ] {
        let found = pricing(text);
        assert!(found.spreads.is_empty() && found.base_spreads.is_empty(), "{text}: {:?}", found.spreads);
        assert!(found.indices.is_empty(), "{text}: {:?}", found.indices);
    }
}

#[test]
fn a_figure_in_the_definition_of_a_default_rate_is_not_a_margin() {
    let text = "\"Applicable Rate\" means, with respect to SOFR Loans, 0.80%.\n\n\"Post-Default Rate\" means, with \
        respect to principal of any SOFR Loan, the rate then applicable to such SOFR Loan, plus 2.00%.\n";
    let found = pricing(text);
    assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.008")]);
}

#[test]
fn a_benchmark_sum_the_rate_may_never_go_under_is_not_the_margin() {
    let text = "The advance carries interest at a fixed 8.25% per annum, but the rate shall in no event be less than \
        Term SOFR plus 2.50% per annum, nor shall it ever be less than the floor below.\n";
    let found = pricing(text);
    assert!(found.spreads.is_empty() && found.indices.is_empty(), "{:?} {:?}", found.spreads, found.indices);
    let text = "Interest accrues at 7% per annum; such rate shall never be less than the Prime Rate plus 1.5%.\n";
    let found = pricing(text);
    assert!(found.spreads.is_empty() && found.base_spreads.is_empty(), "{:?}", found.base_spreads);
}

#[test]
fn a_benchmark_named_only_by_a_default_or_minimum_rate_is_not_the_loans_index() {
    let usd = crate::domain::extraction::currency::CurrencyCode::new("USD").expect("USD");
    for text in [
        "The advance carries a fixed rate of 6% per annum. Any installment not paid when due carries interest at \
         Term SOFR plus 5.00% until paid.\n",
        "The advance carries a fixed rate of 6% per annum. Upon an Event of Default the advance bears interest at \
         LIBOR plus 4%.\n",
        "The advance carries interest at a fixed 8.25% per annum, but the rate shall in no event be less than \
         Term SOFR plus 2.50% per annum.\n",
    ] {
        assert_eq!(default_index(&Document::scan(text), usd), None, "{text}");
    }
    // Named for the loans themselves elsewhere, the benchmark is still the default index.
    let text = "Each advance bears interest at Term SOFR plus the Applicable Margin. Upon an Event of Default \
        the advances bear interest at Term SOFR plus 4%.\n";
    assert_eq!(default_index(&Document::scan(text), usd).map(|i| *i.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
}

#[test]
fn a_credit_spread_adjustment_is_not_a_margin() {
    let text = "\"Adjusted Term SOFR\" means Term SOFR plus 0.10% (the SOFR Adjustment). Each Loan bears interest at Adjusted Term SOFR plus the Applicable Rate.\n";
    assert!(pricing(text).spreads.is_empty());
}

#[test]
fn a_rate_the_margin_is_added_on_top_of_adjusts_the_benchmark_and_is_not_the_margin() {
    let in_parentheses = "Each Term Loan bears interest at a rate per annum equal to Adjusted Term SOFR (being Term SOFR plus 0.10%) plus the Applicable Margin.\n";
    let in_a_row = "From the Amendment Effective Date the Revolving Loans bear interest at Term SOFR plus 0.11448% plus the applicable margin.\n";
    let in_an_added_definition = "Section 1.01 is amended by adding: \"\"Adjusted Term SOFR\" means, for any Interest Period, Term SOFR for such period plus 0.10%.\"\n";
    for text in [in_parentheses, in_a_row, in_an_added_definition] {
        assert!(pricing(text).spreads.is_empty(), "{text}");
    }
}

#[test]
fn every_level_of_a_pricing_grid_is_read() {
    let text = "\"Applicable Rate\" means, with respect to Revolving Loans, the percentage per annum set forth below:\n\nPricing Level | Consolidated Total Net Leverage Ratio | Term SOFR Loans | Base Rate Loans | Commitment Fee\nI | > 3.00:1.00 | 2.25% | 1.25% | 0.350%\nII | <= 3.00:1.00 but > 2.00:1.00 | 2.00% | 1.00% | 0.300%\nIII | <= 2.00:1.00 | 1.75% | 0.75% | 0.250%\n\nOther text.";
    let found = pricing(text);
    assert_eq!(found.grids.len(), 1);
    let grid = &found.grids[0];
    assert_eq!(grid.keys, [FacilityKey::Revolving]);
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.0225"), dec("0.02"), dec("0.0175")]);
    let second = &grid.value[1];
    assert_eq!(second.condition.as_ref().map(|c| c.quote()), Some("<= 3.00:1.00 but > 2.00:1.00"));
    assert_eq!(second.commitment_fee.as_ref().map(|c| *c.value()), Some(dec("0.003")));
    assert!(found.spreads.is_empty(), "grid figures are not flat margins");
}

#[test]
fn day_counts_read_their_basis_and_currency_qualifier() {
    let text = "Interest accrues on the basis of the actual number of days elapsed and a year of 360 days or, in the case of a Loan denominated in sterling, a year of 365 days.";
    let found = pricing(text);
    let read: Vec<(DayCountFraction, Option<String>)> =
        found.day_counts.iter().map(|d| (*d.value.value(), d.currency.map(|c| c.to_string()))).collect();
    assert_eq!(read, [(DayCountFraction::Act360, None), (DayCountFraction::Act365Fixed, Some("GBP".to_owned()))]);
}

#[test]
fn a_commitment_fee_may_be_a_share_of_the_margin() {
    let text = "The Company shall pay to the Agent a commitment fee computed at the rate of 35 per cent. of the applicable Margin on the unused Facility B Commitment.";
    let found = pricing(text);
    assert_eq!(found.fees.first().map(|f| *f.value.value()), Some(CommitmentFee::PercentageOfMargin(dec("0.35"))));
}

#[test]
fn a_rate_defined_as_basis_points_over_libor_gives_its_margin_and_grid() {
    let text = "     \"Libor Option Rate\" means one hundred fifty (150) basis\npoints over Libor; provided that if the Borrower has achieved Net Income of the\nfollowing amounts, then the Libor Option Rate will be as follows:\n\n     Net Income                    Libor Option Rate\n\n     Below 0                       Prime Rate\n     0 - $ 2,000,000               175 basis points over Libor\n     $2,000,001 - $5,000,000       150 basis points over Libor\n     Greater than $5,000,000       125 basis points over Libor\n\n     \"Lien\" means any mortgage.\n";
    let found = pricing(text);
    assert_eq!(
        found.spreads.iter().map(|s| s.value.quote()).collect::<Vec<_>>(),
        ["one hundred fifty (150) basis\npoints"]
    );
    assert_eq!(found.spreads[0].value.value(), &dec("0.015"));
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Option<Decimal>> = grid.value.iter().map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(
        spreads,
        [None, Some(dec("0.0175")), Some(dec("0.015")), Some(dec("0.0125"))],
        "the prime row is a level"
    );
}

#[test]
fn a_wrapped_header_and_wrapped_conditions_keep_every_row_of_the_grid() {
    let text = "the Applicable Margin for LIBO Rate Advances shall be adjusted to be as follows:\n\n     If Interest         If Fixed Charge\n     Coverage Ratio is   Coverage Ratio is        Then\n                                                  Applicable\n     for the period      for the period           Margin is\n\n     < 1.75 : 1          or   < 1.20 : 1          2.50%\n\n     > or = 1.75 : 1     and  > or = 1.20 : 1     2.25%\n     and < 2.50 : 1      and < 1.40 : 1\n\n     > or = 2.50 : 1     and > or = 1.40 : 1      2.00%\n\n     The adjustments set forth in this paragraph apply quarterly.\n";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.025"), dec("0.0225"), dec("0.02")]);
}

#[test]
fn a_table_that_prices_nothing_is_not_a_grid() {
    let text = "the Borrower shall repay the Term Loans as follows:\n\n     Date                Amount\n\n     March 31, 2026      2.50%\n     June 30, 2026       2.50%\n";
    assert!(pricing(text).grids.is_empty());
}

#[test]
fn a_margin_for_loans_of_another_rate_is_not_the_benchmark_margin() {
    for text in [
        "\"Applicable Margin\" shall mean (i) with respect to Index Rate Advances, 0% per annum and (ii) with respect to LIBO Rate Advances, 2.5% per annum.\n",
        "\"Applicable Margin\" means (a) for Fixed Rate Loans, 1.00% and (b) for Eurodollar Rate Loans, 2.5%.\n",
    ] {
        let found = pricing(text);
        assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.025")], "{text}");
    }
    let text = "\"Applicable Margin\" means (i) with respect to Eurocurrency Rate Loans, 2.00% per annum.\n";
    assert_eq!(pricing(text).spreads.len(), 1, "Eurocurrency loans bear the interbank rate");
}

#[test]
fn one_margin_for_loans_of_two_benchmarks_takes_the_preferred_benchmark() {
    let text = "\u{201c}Applicable Rate\u{201d} means (a) with respect to Base Rate Loans, 0.00% per annum and (b) with respect to Term SOFR Loans and Daily Simple SOFR Loans, 0.75% per annum.";
    let found = pricing(text);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    let alone = "Loans bear interest at Daily Simple SOFR plus 1.25% per annum; Term SOFR is not available.";
    assert_eq!(pricing(alone).indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofr));
}
#[test]
fn a_margin_that_applies_only_once_extended_is_not_the_margin() {
    let text = "\u{201c}Applicable Rate\u{201d} means 1.00% per annum for Term SOFR Loans; provided that, if the Maturity Date shall have been extended, then on and after the Original Maturity Date the Applicable Rate shall mean 1.25% per annum for Term SOFR Loans.\n";
    let found = pricing(text);
    assert_eq!(found.spreads.iter().map(|s| *s.value.value()).collect::<Vec<_>>(), [dec("0.01")]);
}

#[test]
fn a_grid_in_percentage_points_for_non_base_rate_loans_is_the_benchmark_margin() {
    let text = "\"Applicable Margin\" means the margin set forth in the following table:\n\nLevel | Leverage Ratio | Base Rate Loans | Non-Base Rate Loans\nI | > 3.00:1.00 | 0.75 percentage points | 1.75 percentage points\nII | < 3.00:1.00 | 0.50 percentage points | 1.50 percentage points\n\nOther text.";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.0175"), dec("0.015")]);
    let base: Vec<Decimal> =
        grid.value.iter().filter_map(|l| l.base_rate_spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(base, [dec("0.0075"), dec("0.005")]);
}
#[test]
fn a_grid_of_unreadable_scope_in_a_definition_pricing_facilities_differently_is_not_used() {
    let text = "\"Applicable Margin\" means:\n\n(a) For Term Loans, 2.50% per annum for Term SOFR Loans; and\n\n(b) For Revolving Loans and all other Loans:\n\n     following delivery of the financial statements, the rate set forth below:\n\n     Leverage Ratio        Term SOFR Loans\n     > 3.00:1.00           2.25%\n     <= 3.00:1.00          2.00%\n\nOther text.";
    assert!(pricing(text).grids.is_empty());
}
#[test]
fn a_grid_of_the_following_percentages_gives_the_libor_column_not_the_cd_column() {
    let text = "     \"APPLICABLE MARGIN\" means, at any time, the following\n     percentages determined by the rating of the Borrower:\n\n                         ABR       LIBOR     CD\n     RATING              MARGIN    MARGIN    MARGIN\n\n     BB or lower         .75%      2.0%      2.10%\n     BBB- or higher      0%        1.25%     1.35%\n\n     \"Bank\" means the lender.\n";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.02"), dec("0.0125")]);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
}
#[test]
fn a_grid_laid_out_across_levels_takes_the_benchmark_loans_row() {
    let text = "\"Applicable Margin\" means the percentage per annum set forth below based upon the Status:\n\nLevel 1 Status | Level 2 Status | Level 3 Status\nEurodollar Loans | 0.500% | 0.625% | 0.800%\nCD Loans | 0.600% | 0.725% | 0.900%\nABR Loans | 0.000% | 0.000% | 0.100%\n\nNotwithstanding the foregoing, upon a Sustainability Notice the Applicable Margin shall be based on the following grid:\n\nLevel 1 Status | Level 2 Status | Level 3 Status\nEurodollar Loans | 0.490% | 0.615% | 0.790%\n\nOther text.";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let read: Vec<(Option<&str>, Option<Decimal>)> = grid
        .value
        .iter()
        .map(|l| (l.level.as_ref().map(|n| n.value().as_str()), l.spread.as_ref().map(|s| *s.value())))
        .collect();
    assert_eq!(
        read,
        [
            (Some("Level 1 Status"), Some(dec("0.005"))),
            (Some("Level 2 Status"), Some(dec("0.00625"))),
            (Some("Level 3 Status"), Some(dec("0.008")))
        ]
    );
    assert!(found.spreads.is_empty(), "{:?}", found.spreads);
}

#[test]
fn a_grid_written_as_lists_per_loan_type_is_a_grid_and_not_competing_flat_margins() {
    let text = "     \"Applicable Margin\" shall mean:\n\n          (a) for Base Rate Loans, (i) 0.50% per annum if \
        the Leverage Ratio exceeds 3.0 to 1 and (ii) 0.25% per annum if the Leverage Ratio is 3.0 to 1 or less; \
        and\n\n          (b) for Eurodollar Rate Loans, (i) 1.75% per annum if the Leverage Ratio exceeds 3.0 to 1 \
        and (ii) 1.25% per annum if the Leverage Ratio is 3.0 to 1 or less.\n\n     \"Bank\" means the lender.\n";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.0175"), dec("0.0125")]);
    let base: Vec<Decimal> =
        grid.value.iter().filter_map(|l| l.base_rate_spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(base, [dec("0.005"), dec("0.0025")]);
    assert!(found.spreads.is_empty() && found.base_spreads.is_empty(), "{:?}", found.spreads);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdLibor));
}

#[test]
fn a_prose_grid_for_each_facility_is_scoped_to_the_facility_its_list_names() {
    let text = "\"Applicable Margin\" means (a) with respect to Term Loans, (i) 2.50% if the Leverage Ratio is \
        greater than 2.0 to 1 and (ii) 2.25% if the Leverage Ratio is 2.0 to 1 or less; and (b) with respect to \
        Revolving Loans, (i) 2.00% if the Leverage Ratio is greater than 2.0 to 1 and (ii) 1.75% if the \
        Leverage Ratio is 2.0 to 1 or less.\n";
    let found = pricing(text);
    let read: Vec<(Vec<FacilityKey>, usize)> = found.grids.iter().map(|g| (g.keys.clone(), g.value.len())).collect();
    assert_eq!(read, [(vec![FacilityKey::Term], 2), (vec![FacilityKey::Revolving], 2)]);
}

/// A bank's loan and security agreement around one interest clause, for end-to-end reading.
fn bank_loan(definitions: &str, interest: &str) -> crate::domain::extraction::Extraction {
    let text = format!(
        "LOAN AND SECURITY AGREEMENT\n\nTHIS LOAN AND SECURITY AGREEMENT is dated as of May 1, 2024, between PORT ALDER BANK (\"Bank\") and \
         WREN DEVICES, INC., a Delaware corporation (\"Borrower\").\n\n1. DEFINITIONS\n\n\"Revolving Line\" is an Advance or \
         Advances of up to Two Million Dollars ($2,000,000) outstanding at any time.\n\n\"Revolving Line Maturity Date\" is \
         May 1, 2026.\n\n{definitions}\n\n2. LOAN AND TERMS OF PAYMENT\n\n2.1 Advances. Bank will make Advances not exceeding the \
         Revolving Line, which Borrower may repay and reborrow until the Revolving Line Maturity Date.\n\n2.2 Interest. \
         {interest}\n\n3. CHOICE OF LAW. California law governs this Agreement.\n"
    );
    crate::domain::extraction::extract_credit_agreement(&text)
}

#[test]
fn a_loan_at_a_fixed_rate_has_no_index_even_if_a_proviso_bounds_it_by_sofr() {
    let read = bank_loan(
        "\"Term SOFR\" means the one-month CME Term SOFR rate.",
        "Advances bear interest at a fixed rate of 7.25% per annum; provided that the rate shall at no time be lower \
         than Term SOFR plus 1.50%.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!((facility.floating_rate_index.as_ref(), facility.spread.as_ref()), (None, None));
    assert!(read.warnings.iter().any(|w| w.contains("they bear a fixed rate")), "{:?}", read.warnings);
}

#[test]
fn a_sofr_swap_quoted_to_compare_other_debt_is_not_the_loans_index() {
    let read = bank_loan(
        "\"Applicable Rate\" means seven and one-quarter percent (7.25%) per annum.\n\n\"MFN Right\" means the Bank's \
         right to raise the Applicable Rate to the extent an Add-On Facility is priced at a spread to 5-year SOFR swaps \
         in excess of 5.00% per annum.",
        "All Advances shall bear interest at a rate per annum equal to the Applicable Rate.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!((facility.floating_rate_index.as_ref(), facility.spread.as_ref()), (None, None));
}

#[test]
fn a_spread_defined_before_and_from_a_named_date_is_the_later_one() {
    let text = "\"Spread\" means, on any date of determination (i) prior to the Second Restatement Date, 3.10% per annum, \
        and (ii) on or after the Second Restatement Date, 2.60% per annum.\n\nEach Loan bears interest at Term SOFR plus \
        the Spread.\n";
    let spreads: Vec<Decimal> = pricing(text).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.026")]);
    // A step that does not name the date again supersedes nothing: both rates stay (and conflict).
    let steps = text.replace("(ii) on or after the Second Restatement Date,", "(ii) thereafter,");
    let spreads: Vec<Decimal> = pricing(&steps).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.031"), dec("0.026")]);
}

#[test]
fn a_rate_term_the_loans_bear_whole_is_their_fixed_rate_not_a_margin() {
    let read = bank_loan(
        "\"Applicable Rate\" means, initially, seven and one-quarter percent (7.25%) per annum.",
        "All Advances shall bear interest on the unpaid principal amount thereof at a rate per annum equal to the \
         Applicable Rate.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!((facility.floating_rate_index.as_ref(), facility.spread.as_ref()), (None, None));
    // The same term added to a benchmark is the margin.
    let read = bank_loan(
        "\"Applicable Rate\" means 2.25% per annum.\n\n\"Term SOFR\" means the one-month CME Term SOFR rate.",
        "All Advances shall bear interest at a rate per annum equal to Term SOFR plus the Applicable Rate.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!(facility.spread.as_ref().map(|s| *s.value()), Some(dec("0.0225")));
}

#[test]
fn loans_named_by_a_bare_sofr_bear_the_rate_their_definition_names() {
    let text = "\"Applicable Margin\" means, for the Advances consisting of SOFR Term Loans, three percent (3.00%).\n\n\
        \"SOFR\" means the secured overnight financing rate.\n\n\"SOFR Term Loan\" means an Advance that bears interest \
        at a rate based on Adjusted Term SOFR.\n\nEach Advance bears interest at Adjusted Term SOFR plus the Applicable \
        Margin.\n";
    let found = pricing(text);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    // Loans whose definition names daily simple SOFR bear it.
    let daily = text.replace("Adjusted Term SOFR.", "Daily Simple SOFR.");
    assert_eq!(pricing(&daily).indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofr));
}

#[test]
fn a_fallback_rate_of_a_fixed_rate_loan_is_neither_its_index_nor_its_margin() {
    let read = bank_loan(
        "\"Prime Rate\" is the prime rate published in The Wall Street Journal.",
        "Advances bear interest at a fixed rate of 6.75% per annum. If that rate may not lawfully be charged, Advances \
         shall bear interest at the Prime Rate plus 1.00%.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!((facility.floating_rate_index.as_ref(), facility.spread.as_ref()), (None, None));
}

#[test]
fn a_prime_rate_loan_whose_letter_of_credit_fee_is_over_sofr_is_still_a_prime_rate_loan() {
    let read = bank_loan(
        "\"Prime Rate\" is the prime rate published in The Wall Street Journal.",
        "Advances bear interest at the Prime Rate plus 0.50% per annum.\n\n2.3 Letters of Credit. Borrower shall pay a \
         letter of credit fee of Term SOFR plus 1.25% per annum on the face amount of each Letter of Credit.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!(facility.floating_rate_index.as_ref().map(|i| *i.value()), Some(FloatingRateIndex::UsdPrime));
    assert_eq!(facility.spread.as_ref().map(|s| *s.value()), Some(dec("0.005")));
}

#[test]
fn a_benchmark_only_defined_and_named_for_the_default_rate_or_a_swap_is_not_the_loans() {
    for other in [
        "2.3 Default Rate. After an Event of Default, Obligations bear interest at Term SOFR plus 6.00%.",
        "2.3 Hedging. Borrower may enter into an interest rate swap with Bank under which Borrower receives Term SOFR.",
        "2.3 Minimum Rate. In no event shall the rate on the Advances be less than Term SOFR plus 1.00%.",
    ] {
        let read = bank_loan(
            "\"Prime Rate\" is the prime rate published in The Wall Street Journal.\n\n\"Term SOFR\" means the \
             one-month CME Term SOFR rate.",
            &format!("Advances bear interest at the Prime Rate plus 0.50% per annum.\n\n{other}"),
        );
        let facility = read.agreement.facilities.first().expect("the revolving line");
        assert_eq!(
            facility.floating_rate_index.as_ref().map(|i| *i.value()),
            Some(FloatingRateIndex::UsdPrime),
            "{other}"
        );
    }
}

#[test]
fn a_benchmark_that_is_one_leg_of_the_prime_rate_s_definition_is_not_the_loans_index() {
    let read = bank_loan(
        "\"Prime Rate\" means, for any day, the highest of (a) the prime rate The Wall Street Journal publishes, (b) \
         the Federal Funds Rate plus 0.50% and (c) Term SOFR for a one-month tenor plus 1.00%.",
        "Advances bear interest at the Prime Rate plus 1.75% per annum.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    // The leg's 1.00% over Term SOFR still stands against the 1.75% over prime, so the margin and
    // its index are withheld rather than read as a Term SOFR loan.
    let index = facility.floating_rate_index.as_ref().map(|i| *i.value());
    assert!(index != Some(FloatingRateIndex::UsdSofrCmeTerm), "{index:?}");
    assert!(facility.spread.as_ref().is_none_or(|s| *s.value() != dec("0.01")), "{:?}", facility.spread);
}

#[test]
fn a_prime_rate_named_only_as_a_leg_of_the_fallback_base_rate_is_not_the_loans_index() {
    let read = bank_loan(
        "\"Base Rate\" means the greatest of (a) the Prime Rate, (b) the Federal Funds Rate plus 0.50% and (c) 1.00%.",
        "Advances bear interest at the Benchmark plus 2.75% per annum or, if the Benchmark cannot be determined, at \
         the Base Rate plus 1.75% per annum.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!(facility.floating_rate_index.as_ref().map(|i| *i.value()), None);
    // The same, with the base rate defined inside the interest clause's paragraph.
    let read = bank_loan(
        "",
        "Advances bear interest at the Benchmark plus 2.75% per annum or, if the Benchmark cannot be determined, at \
         the Base Rate plus 1.75% per annum. \"Base Rate\" means the greatest of (a) the Prime Rate, (b) the Federal \
         Funds Rate plus 0.50% and (c) 1.00%.",
    );
    let facility = read.agreement.facilities.first().expect("the revolving line");
    assert_eq!(facility.floating_rate_index.as_ref().map(|i| *i.value()), None);
}

#[test]
fn an_export_sub_line_priced_on_sofr_does_not_price_the_line() {
    let text = "(a) Advances shall bear interest at a floating per annum rate equal to the Prime Rate plus 0.75%.\n\n(b) Ex-Im Advances shall bear interest at a floating per annum rate equal to Term SOFR plus 2.25%.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0075")]);
    assert!(found.indices.iter().all(|i| *i.value.value() == FloatingRateIndex::UsdPrime));
    // Leaving the sub-line out names the line's own loans.
    let left_out = "Advances (other than Ex-Im Advances) shall bear interest at a floating per annum rate equal to Term SOFR plus 3.00%.\n";
    let spreads: Vec<Decimal> = pricing(left_out).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.03")]);
}

#[test]
fn a_benchmark_defined_as_initially_term_sofr_is_term_sofr() {
    let text = "Each Term Loan bears interest at a floating per annum rate equal to the Benchmark plus 5.75%.\n\n\"Benchmark\" means, initially, Term SOFR; provided that after a Benchmark Transition Event it means the Benchmark Replacement.\n";
    let found = pricing(text);
    let spreads: Vec<Decimal> = found.spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.0575")]);
    assert_eq!(found.indices.first().map(|i| *i.value.value()), Some(FloatingRateIndex::UsdSofrCmeTerm));
    // The terms the word opens are no mentions of the rate.
    let doc = Document::scan(text);
    assert!(doc.benchmarks.iter().all(|b| !doc.slice(b.span.clone()).contains("Replacement")));
    let replaced = doc.benchmarks.iter().filter(|b| doc.slice(b.span.end..b.span.end + 11) == " Transition").count();
    assert_eq!(replaced, 0);
}

#[test]
fn a_figure_taken_off_a_rate_is_not_a_margin_over_it() {
    let text = "\"Applicable Margin\" means, with respect to (a) any Eurocurrency Rate Advance, a rate per annum equal to the CDS Spread and (b) any Base Rate Advance, a rate per annum equal to the CDS Spread less 1.00% per annum.\n";
    let found = pricing(text);
    assert!(found.spreads.is_empty() && found.base_spreads.is_empty(), "{:?} {:?}", found.spreads, found.base_spreads);
    // A word that only ends in "less" takes nothing off.
    let added = "\"Applicable Margin\" means, for Term SOFR Loans, nevertheless 1.75% per annum.\n";
    assert_eq!(pricing(added).spreads.first().map(|s| *s.value.value()), Some(dec("0.0175")));
}

#[test]
fn a_grid_whose_cells_each_sit_on_a_line_of_their_own_is_read_by_its_heading() {
    let text = "\"Applicable Rate\" means, for any day, the rate per annum set forth below opposite the applicable Pricing Level:\nPricing Level\nABR\nLoans\nTerm SOFR\nLoans\nFacility\nFee\nPricing Level I\n0.000%\n0.750%\n0.060%\nPricing Level II\n0.125%\n1.125%\n0.080%\nPricing Level III\n0.250%\n1.250%\n0.100%\n\n\"Approved Fund\" means any fund.\n";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let read: Vec<(String, Decimal, Option<Decimal>, Option<Decimal>)> = grid
        .value
        .iter()
        .map(|l| {
            (
                l.level.as_ref().map(|n| n.value().clone()).unwrap_or_default(),
                *l.spread.as_ref().expect("spread").value(),
                l.base_rate_spread.as_ref().map(|s| *s.value()),
                l.commitment_fee.as_ref().map(|s| *s.value()),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("Pricing Level I".to_owned(), dec("0.0075"), Some(dec("0")), Some(dec("0.0006"))),
            ("Pricing Level II".to_owned(), dec("0.01125"), Some(dec("0.00125")), Some(dec("0.0008"))),
            ("Pricing Level III".to_owned(), dec("0.0125"), Some(dec("0.0025")), Some(dec("0.001"))),
        ]
    );
    assert!(found.spreads.is_empty(), "grid figures are not flat margins");
}

#[test]
fn a_grid_whose_row_cells_ran_together_is_read_and_one_that_cannot_be_told_apart_is_not() {
    let text = "\"Applicable Margin\" shall mean the rate per annum set forth in the table below:\nLevel\nRatings\nApplicable Margin\nfor SOFR\nLoans\n\n\nApplicable Margin\nfor ABR\nLoans\nIBaa3/BBB- or better1.75%0.75%IIBa1/BB+ or worse2.00%1.00%\n\nOther text.\n";
    let found = pricing(text);
    let [grid] = found.grids.as_slice() else { panic!("one grid: {:?}", found.grids) };
    let spreads: Vec<Decimal> = grid.value.iter().filter_map(|l| l.spread.as_ref().map(|s| *s.value())).collect();
    assert_eq!(spreads, [dec("0.0175"), dec("0.02")]);
    assert_eq!(grid.value[1].condition.as_ref().map(|c| c.quote()), Some("IIBa1/BB+ or worse"));
    // A label ending in a digit run into a two-digit figure ("A/A21.25%"), a column the heading
    // does not name ("Drawn Cost"), or a heading naming a column twice: no grid is read.
    for unreadable in [
        text.replace("better1.75%", "A/A21.75%").replace("worse2.00%", "A/A32.00%"),
        text.replace("for ABR\nLoans\n", "for ABR\nLoans\nDrawn Cost\n")
            .replace("0.75%II", "0.75%1.00%II")
            .replace("1.00%\n\n", "1.25%1.00%\n\n"),
        text.replace("for SOFR\nLoans", "for SOFR Loans\nand Letter of Credit Fees"),
    ] {
        let found = pricing(&unreadable);
        assert!(found.grids.is_empty(), "{unreadable}: {:?}", found.grids);
    }
}

#[test]
fn a_eurodollar_benchmark_gives_the_dollar_to_a_facility_with_no_stated_amount() {
    let doc = Document::scan(
        "AMENDMENT NO. 4. The Eurodollar Margin shall be 1.10% per annum and the Base Rate Margin 0.10%.\n",
    );
    assert_eq!(index::dollars_by_benchmark(&doc).map(|c| c.as_str().to_owned()), Some("USD".to_owned()));
    let libor = Document::scan("AMENDMENT NO. 4. The LIBOR Margin shall be 1.10% per annum.\n");
    assert_eq!(index::dollars_by_benchmark(&libor), None, "LIBOR was quoted in several currencies");
    let multicurrency = Document::scan(
        "AMENDMENT NO. 4. The Eurodollar Rate applies to every Loan, including Loans in an Alternative Currency.\n",
    );
    assert_eq!(index::dollars_by_benchmark(&multicurrency), None);
}

#[test]
fn a_rate_fused_with_another_by_a_lost_markup_is_no_margin_but_a_whole_one_is() {
    let fused = "\"Applicable Rate\" means, with respect to Term B Loans, 4.003.50% per annum for Term SOFR Loans.\n";
    assert!(pricing(fused).spreads.is_empty(), "{:?}", pricing(fused).spreads);
    let whole = "\"Applicable Rate\" means, with respect to Term B Loans, 3.50% per annum for Term SOFR Loans.\n";
    let spreads: Vec<Decimal> = pricing(whole).spreads.iter().map(|c| *c.value.value()).collect();
    assert_eq!(spreads, [dec("0.035")]);
}
