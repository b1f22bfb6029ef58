// import.mjs aggregates a generated FOCUS bill (billing/focusgen) with DuckDB's CSV reader at
// gpucost import billing's grain — day × every dimension gpucost keeps, DECIMAL sums — into a
// DuckDB database file, and prints the rows read, the lines stored and the billed total:
//
//	node import.mjs BILL.csv DB.duckdb
//	MONEY='DECIMAL(38,9)' node import.mjs BILL.csv DB.duckdb
import { DuckDBInstance } from '@duckdb/node-api';

const [bill, db] = process.argv.slice(2);
if (!bill || !db) {
	console.error('usage: node import.mjs BILL.csv DB.duckdb');
	process.exit(2);
}
// Amounts are DECIMAL(18,9): nine decimal places in 64 bits, as gpucost.Money keeps them (nanos),
// summed exactly; MONEY overrides it (DECIMAL(38,9), 128-bit, took 7× DuckDB's CPU time here).
const money = process.env.MONEY || 'DECIMAL(18,9)';
const types = {
	BilledCost: money, EffectiveCost: money, ListCost: money, ContractedCost: money,
	PricingQuantity: 'DOUBLE', ConsumedQuantity: 'DOUBLE',
	ChargePeriodStart: 'TIMESTAMP', ChargePeriodEnd: 'TIMESTAMP', BillingPeriodStart: 'TIMESTAMP',
	BillingAccountId: 'VARCHAR', SubAccountId: 'VARCHAR', ChargeClass: 'VARCHAR', Tags: 'VARCHAR',
};
const instance = await DuckDBInstance.create(db);
const conn = await instance.connect();
const typeList = Object.entries(types).map(([k, v]) => `'${k}': '${v}'`).join(', ');
await conn.run(`CREATE TABLE lines AS
SELECT date_trunc('day', ChargePeriodStart) AS day, ProviderName, BillingAccountId, SubAccountId,
	ChargeCategory, ChargeClass, ChargeFrequency, PricingCategory, ResourceId, ResourceType,
	ServiceName, ServiceCategory, RegionId, SkuId, ChargeDescription, ConsumedUnit, PricingUnit,
	BillingCurrency, BillingPeriodStart, Tags,
	sum(BilledCost) AS billed, sum(EffectiveCost) AS effective, sum(ListCost) AS list,
	sum(ContractedCost) AS contracted, sum(ConsumedQuantity) AS consumed,
	sum(PricingQuantity) AS pricing, count(*) AS rows
FROM read_csv('${bill.replaceAll("'", "''")}', header = true, types = {${typeList}})
GROUP BY ALL`);
const r = await conn.runAndReadAll('SELECT sum(rows)::BIGINT, count(*)::BIGINT, sum(billed)::VARCHAR FROM lines');
const [rows, lines, billed] = r.getRows()[0];
console.log(JSON.stringify({ rows: Number(rows), lines: Number(lines), billed }));
