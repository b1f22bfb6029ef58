package demo

// Budgets are the demo teams' budgets as a budget file, which gpucost demo's dashboard shows:
// research's GPUs run over, inference is heading past its amount, training stays inside.
const Budgets = `# The demo fleet's budgets (gpucost budget status --file THIS shows them too).
budgets:
  - name: research-gpus
    scope: {team: research, gpu_only: true}
    period: monthly
    amount: 40000
    currency: USD
  - name: inference
    scope: {team: inference}
    period: monthly
    amount: 75000
    currency: USD
  - name: foundation-models
    scope: {team: foundation-models}
    period: monthly
    amount: 60000
    currency: USD
  - name: all-aws
    scope: {provider: aws}
    period: quarterly
    amount: 600000
    currency: USD
`
