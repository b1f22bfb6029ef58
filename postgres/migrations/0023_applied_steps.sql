-- Applied steps are the recommender's plan steps a team made (gpucost recommend apply, the API,
-- or a change found in the bill), kept so that gpucost measures on the bill what each saved
-- (docs/architecture.md "Realized savings"). Amounts are nano-units of currency, as the
-- plan priced them when the step was applied; resources are the group's machines.
CREATE TABLE applied_steps (
	id              text        PRIMARY KEY,
	grp             text        NOT NULL,
	lever           text        NOT NULL,
	action          text        NOT NULL,
	currency        text        NOT NULL,
	predicted_nanos bigint      NOT NULL,
	before_nanos    bigint      NOT NULL,
	after_nanos     bigint      NOT NULL,
	provider        text        NOT NULL,
	region          text        NOT NULL,
	instance_type   text        NOT NULL,
	namespace       text        NOT NULL,
	resources       text[]      NOT NULL,
	applied_at      timestamptz NOT NULL,
	how             text        NOT NULL,
	actor           text        NOT NULL,
	note            text        NOT NULL,
	recorded_at     timestamptz NOT NULL
);
