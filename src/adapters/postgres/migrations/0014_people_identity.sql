-- The company, role and location a people-workflow request gave as fields: with the name, they
-- tell the person apart from namesakes. Absent for results stored before.
ALTER TABLE people_results
    ADD COLUMN company  text,
    ADD COLUMN role     text,
    ADD COLUMN location text;
