-- Applied steps are the recommender's plan steps a team made (gpucost recommend apply, the API,
-- or a change found in the bill), kept so that gpucost measures on the bill what each saved
-- (docs/architecture.md "Realized savings"). Amounts are nano-units of currency, as the
-- plan priced them when the step was applied; resources is a JSON array of the group's
-- machines; times are Unix nanoseconds (UTC).
CREATE TABLE applied_steps (
	id              TEXT    PRIMARY KEY,
	grp             TEXT    NOT NULL,
	lever           TEXT    NOT NULL,
	action          TEXT    NOT NULL,
	currency        TEXT    NOT NULL,
	predicted_nanos INTEGER NOT NULL,
	before_nanos    INTEGER NOT NULL,
	after_nanos     INTEGER NOT NULL,
	provider        TEXT    NOT NULL,
	region          TEXT    NOT NULL,
	instance_type   TEXT    NOT NULL,
	namespace       TEXT    NOT NULL,
	resources       TEXT    NOT NULL,
	applied_ns      INTEGER NOT NULL,
	how             TEXT    NOT NULL,
	actor           TEXT    NOT NULL,
	note            TEXT    NOT NULL,
	recorded_ns     INTEGER NOT NULL
) WITHOUT ROWID;
