#!/usr/bin/env python3
"""Writes the Azure cost details fixtures of billing/azure/testdata by hand-built rows.

Column sets: Microsoft's dataset schema reference (cost-usage-details-ea 2024-08-01,
cost-usage-details-mca 2023-12-01-preview, cost-usage-details-pay-as-you-go 2019-11-01,
usage-details-ea-2019-07-02-preview) and the EA portal's spaced names.
"""
import csv, io, json, os
from decimal import Decimal as D

OUT = os.path.dirname(os.path.abspath(__file__)) + "/"

EA_COLS = """InvoiceSectionName AccountName AccountOwnerId SubscriptionId SubscriptionName ResourceGroup
ResourceLocation Date ProductName MeterCategory MeterSubCategory MeterId MeterName MeterRegion UnitOfMeasure
Quantity EffectivePrice CostInBillingCurrency CostCenter ConsumedService ResourceId Tags OfferId AdditionalInfo
ServiceInfo1 ServiceInfo2 ResourceName ReservationId ReservationName UnitPrice ProductOrderId ProductOrderName Term
PublisherType PublisherName ChargeType Frequency PricingModel AvailabilityZone BillingAccountId BillingAccountName
BillingCurrencyCode BillingPeriodStartDate BillingPeriodEndDate BillingProfileId BillingProfileName InvoiceSectionId
IsAzureCreditEligible PartNumber PayGPrice PlanName ServiceFamily CostAllocationRuleName benefitId benefitName
AccountId ResourceLocationNormalized""".split()
assert len(EA_COLS) == 57

MCA_COLS = """invoiceId previousInvoiceId billingAccountId billingAccountName billingProfileId billingProfileName
invoiceSectionId invoiceSectionName resellerName resellerMpnId costCenter billingPeriodEndDate billingPeriodStartDate
servicePeriodEndDate servicePeriodStartDate date serviceFamily productOrderId productOrderName consumedService meterId
meterName meterCategory meterSubCategory meterRegion ProductId ProductName SubscriptionId subscriptionName
publisherType publisherId publisherName resourceGroupName ResourceId resourceLocation location effectivePrice quantity
unitOfMeasure chargeType billingCurrency pricingCurrency costInBillingCurrency costInPricingCurrency costInUsd
paygCostInBillingCurrency paygCostInUsd exchangeRatePricingToBilling exchangeRateDate isAzureCreditEligible
serviceInfo1 serviceInfo2 additionalInfo tags PayGPrice frequency term reservationId reservationName pricingModel
unitPrice costAllocationRuleName benefitId benefitName provider""".split()
assert len(MCA_COLS) == 65

SUB_ML = "3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d"
SUB_INF = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
RI_ORDER = "7f3a9c2e-1b4d-4e8a-9c6f-2d5e8b1a4c7f"
RI_ID = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
RI_BENEFIT = f"/providers/Microsoft.Capacity/reservationOrders/{RI_ORDER}/reservations/{RI_ID}"
SP_ORDER = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
SP_ID = "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d"
SP_BENEFIT = f"/providers/Microsoft.BillingBenefits/savingsPlanOrders/{SP_ORDER}/savingsPlans/{SP_ID}"


def vm_info(size, vcpus, image="Canonical"):
    return json.dumps({"UsageType": "ComputeHR", "ImageType": image, "ServiceType": size, "VMName": "",
                       "VMProperties": "Microsoft.Compute/virtualMachines", "VCPUs": vcpus, "CPUs": 0},
                      separators=(",", ":"))


def rid(sub, rg, typ, name):
    return f"/subscriptions/{sub}/resourceGroups/{rg}/providers/{typ}/{name}"


def write(name, cols, rows, bom=False, crlf=False):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n" if crlf else "\n")
    w.writerow(cols)
    for r in rows:
        unknown = set(r) - set(cols)
        assert not unknown, unknown
        w.writerow([r.get(c, "") for c in cols])
    data = buf.getvalue()
    with open(OUT + name, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(data)


def q(x):
    return format(x, "f")


# ---------------------------------------------------------------- EA, September 2024
EA_BASE = {"InvoiceSectionName": "AI Platform", "AccountName": "ML Engineering", "AccountOwnerId": "ml-owner@contoso.com",
           "SubscriptionName": "ml-prod", "OfferId": "MS-AZR-0017P", "PublisherType": "Azure", "PublisherName": "Microsoft",
           "BillingAccountId": "8611537", "BillingAccountName": "Contoso", "BillingCurrencyCode": "USD",
           "BillingPeriodStartDate": "09/01/2024", "BillingPeriodEndDate": "09/30/2024", "BillingProfileId": "8611537",
           "BillingProfileName": "Contoso", "InvoiceSectionId": "412873", "IsAzureCreditEligible": "True",
           "CostAllocationRuleName": "", "AccountId": "231908", "ServiceFamily": "Compute"}


def ea_vm(date, sub, rg, vm, size, meter_sub, meter, price, unit_price, qty, tags, *, model="OnDemand", cost=None,
          eff=None, loc="eastus", vcpus=24, benefit="", benefit_name="", res_id="", res_name="", order="",
          order_name="", term="", typ="Microsoft.Compute/virtualMachines", consumed="Microsoft.Compute", extra=None):
    eff = unit_price if eff is None else eff
    cost = eff * qty if cost is None else cost
    r = dict(EA_BASE, SubscriptionId=sub, SubscriptionName="ml-prod" if sub == SUB_ML else "inference-prod",
             ResourceGroup=rg, ResourceLocation=loc.replace("eastus", "EastUS").replace("westeurope", "WestEurope"),
             Date=date, ProductName=f"Virtual Machines {meter_sub} - {meter} - {'EU West' if loc == 'westeurope' else 'US East'}",
             MeterCategory="Virtual Machines", MeterSubCategory=meter_sub, MeterId=f"meter-{size.lower()}-{model.lower()}",
             MeterName=meter, MeterRegion="US East", UnitOfMeasure="1 Hour", Quantity=q(qty), EffectivePrice=q(eff),
             CostInBillingCurrency=q(cost), CostCenter="CC-4100", ConsumedService=consumed,
             ResourceId=rid(sub, rg, typ, vm), Tags=tags, AdditionalInfo=vm_info(size, vcpus), ResourceName=vm,
             ReservationId=res_id, ReservationName=res_name, UnitPrice=q(unit_price), ProductOrderId=order,
             ProductOrderName=order_name, Term=term, ChargeType="Usage", Frequency="UsageBased", PricingModel=model,
             PartNumber=f"AAH-{size[-8:].upper()}", PayGPrice=q(price), benefitId=benefit, benefitName=benefit_name,
             ResourceLocationNormalized="East US")
    r.update(extra or {})
    return r


TAGS_ML = '"team": "ml-research","project": "llm-pretrain"'  # EA writes tags without braces
TAGS_INF = '{"team": "inference","project": "chat-serving","env": "prod"}'
TAGS_AKS = '"aks-managed-cluster-name": "gpu-aks","aks-managed-poolName": "t4pool","team": "vision"'


def ea_rows(amortized):
    d = "09/14/2024"
    rows = [
        ea_vm(d, SUB_ML, "ml-training", "gpu-a100-01", "Standard_NC24ads_A100_v4", "NCadsA100v4 Series",
              "NC24ads A100 v4", D("3.673"), D("3.49"), D(24), TAGS_ML),
        ea_vm(d, SUB_ML, "ml-training", "gpu-h100-01", "Standard_ND96isr_H100_v5", "NDsr H100 v5 Series",
              "ND96isr H100 v5", D("98.32"), D("93.40"), D(24), '{"team": "ml-research", "project": "llm-pretrain", "Owner": "a.k@contoso.com"}', vcpus=96),
        ea_vm(d, SUB_ML, "ml-finetune", "spot-t4-07", "Standard_NC4as_T4_v3", "NCasT4 v3 Series",
              "NC4as T4 v3 Spot", D("0.1578"), D("0.1578"), D("17.5"), '"team": "ml-research","project": "finetune-spot"',
              model="Spot", vcpus=4),
        # reserved H100: actual cost prices covered usage at 0
        ea_vm(d, SUB_INF, "serving", "gpu-h100-serve-01", "Standard_ND96isr_H100_v5", "NDsr H100 v5 Series",
              "ND96isr H100 v5", D("98.32"), D("93.40"), D(22), TAGS_INF, model="Reservation", vcpus=96,
              eff=D("61.40") if amortized else D(0), benefit=RI_BENEFIT, benefit_name="ND96isr_H100_v5_1y_eastus",
              res_id=RI_ID, res_name="ND96isr_H100_v5_1y_eastus", order=RI_ORDER, order_name="Reserved VM Instance, Standard_ND96isr_H100_v5, US East, 1 Year", term="12"),
        # savings plan covered A100 in West Europe
        ea_vm(d, SUB_INF, "serving-eu", "gpu-a100-serve-eu", "Standard_NC48ads_A100_v4", "NCadsA100v4 Series",
              "NC48ads A100 v4", D("8.069"), D("7.67"), D(24), TAGS_INF, model="SavingsPlan", loc="westeurope",
              eff=D("5.2313") if amortized else D(0), benefit=SP_BENEFIT, benefit_name="compute-sp-3y", vcpus=48,
              extra={"ResourceLocationNormalized": "West Europe", "MeterRegion": "EU West"}),
        # AKS GPU node pool: a scale set
        ea_vm(d, SUB_ML, "mc_gpu-aks_eastus", "aks-t4pool-31415926-vmss", "Standard_NC8as_T4_v3", "NCasT4 v3 Series",
              "NC8as T4 v3", D("0.752"), D("0.7144"), D(72), TAGS_AKS,
              typ="Microsoft.Compute/virtualMachineScaleSets", vcpus=8),
        # Azure ML compute cluster: VM meters on the workspace
        ea_vm(d, SUB_ML, "ml-workspace-rg", "mlw-research", "Standard_NV36ads_A10_v5", "NVadsA10 v5 Series",
              "NV36ads A10 v5", D("3.20"), D("3.04"), D("5.25"), '"team": "ml-research","azureml-compute": "a10-cluster"',
              typ="Microsoft.MachineLearningServices/workspaces", consumed="Microsoft.MachineLearningServices", vcpus=36),
        # low-priority Batch V100
        ea_vm(d, SUB_ML, "batch-rg", "batchgpu", "Standard_NC6s_v3", "NCSv3 Series", "NC6s v3 Low Priority",
              D("0.612"), D("0.612"), D(40), '"team": "speech"', typ="Microsoft.Batch/batchAccounts",
              consumed="Microsoft.Batch", vcpus=6),
    ]
    disk = dict(EA_BASE, SubscriptionId=SUB_ML, ResourceGroup="ml-training", ResourceLocation="eastus", Date=d,
                ProductName="Premium SSD Managed Disks - P30 LRS - US East", MeterCategory="Storage",
                MeterSubCategory="Premium SSD Managed Disks", MeterId="meter-p30-lrs", MeterName="P30 LRS Disk",
                MeterRegion="US East", UnitOfMeasure="1/Month", Quantity="0.0333333333", EffectivePrice="135.17",
                CostInBillingCurrency="4.505666662", ConsumedService="Microsoft.Compute",
                ResourceId=rid(SUB_ML, "ml-training", "Microsoft.Compute/disks", "gpu-a100-01_OsDisk_1"), Tags=TAGS_ML,
                ResourceName="gpu-a100-01_OsDisk_1", UnitPrice="135.17", ChargeType="Usage", Frequency="UsageBased",
                PricingModel="OnDemand", PayGPrice="135.17", ServiceFamily="Storage", PartNumber="AAD-12345",
                ResourceLocationNormalized="East US")
    ops = dict(disk, ProductName="Tiered Block Blob - LRS - List and Create Container Operations - US East",
               MeterSubCategory="Tiered Block Blob", MeterId="meter-blob-list", MeterName="LRS List and Create Container Operations",
               UnitOfMeasure="10K", Quantity="0.0003", EffectivePrice="0.05", CostInBillingCurrency="0.000015",
               ConsumedService="Microsoft.Storage", ResourceId=rid(SUB_ML, "ml-data", "Microsoft.Storage/storageAccounts", "mldatasets01"),
               ResourceName="mldatasets01", ResourceGroup="ml-data", UnitPrice="0.05", PayGPrice="0.05", Tags='"team": "ml-research"')
    egress = dict(EA_BASE, SubscriptionId=SUB_INF, SubscriptionName="inference-prod", ResourceGroup="", ResourceLocation="Unassigned",
                  Date=d, ProductName="Rtn Preference: MGN - Data Transfer Out - Zone 1", MeterCategory="Bandwidth",
                  MeterSubCategory="Rtn Preference: MGN", MeterId="meter-egress-z1", MeterName="Standard Data Transfer Out",
                  MeterRegion="Zone 1", UnitOfMeasure="1 GB", Quantity="812.4471", EffectivePrice="0.087",
                  CostInBillingCurrency="70.6828977", ConsumedService="Microsoft.Network", ChargeType="Usage",
                  Frequency="UsageBased", PricingModel="OnDemand", UnitPrice="0.087", PayGPrice="0.087", ServiceFamily="Networking")
    lic = dict(disk, ProductName="Virtual Machines Licenses - Windows Server - 10 Hours", MeterCategory="Virtual Machine Licenses",
               MeterSubCategory="Windows Server", MeterId="meter-winlic-10h", MeterName="Windows Server 8 vCPU License",
               UnitOfMeasure="10 Hours", Quantity="2.4", EffectivePrice="1.472", CostInBillingCurrency="3.5328",
               ConsumedService="Microsoft.Compute", ResourceId=rid(SUB_INF, "serving", "Microsoft.Compute/virtualMachines", "win-render-01"),
               ResourceName="win-render-01", ResourceGroup="serving", SubscriptionId=SUB_INF, SubscriptionName="inference-prod",
               UnitPrice="1.472", PayGPrice="1.84", Tags=TAGS_INF)
    rows += [disk, ops, egress, lic]
    if amortized:
        rows.append(dict(EA_BASE, SubscriptionId=SUB_INF, SubscriptionName="inference-prod", ResourceGroup="", ResourceLocation="eastus",
                         Date=d, ProductName="Reserved VM Instance, Standard_ND96isr_H100_v5, US East, 1 Year",
                         MeterCategory="Virtual Machines", MeterSubCategory="NDsr H100 v5 Series", MeterId="meter-standard_nd96isr_h100_v5-reservation",
                         MeterName="ND96isr H100 v5", MeterRegion="US East", UnitOfMeasure="1 Hour", Quantity="2",
                         EffectivePrice="61.40", CostInBillingCurrency="122.80", ConsumedService="Microsoft.Compute",
                         ReservationId=RI_ID, ReservationName="ND96isr_H100_v5_1y_eastus", UnitPrice="93.40",
                         ProductOrderId=RI_ORDER, ProductOrderName="Reserved VM Instance, Standard_ND96isr_H100_v5, US East, 1 Year",
                         Term="12", ChargeType="UnusedReservation", Frequency="UsageBased", PricingModel="Reservation",
                         PayGPrice="98.32", benefitId=RI_BENEFIT, benefitName="ND96isr_H100_v5_1y_eastus"))
        rows.append(dict(EA_BASE, SubscriptionId=SUB_INF, SubscriptionName="inference-prod", ResourceLocation="",
                         Date=d, ProductName="Compute Savings Plan, 3 Years", MeterCategory="", MeterSubCategory="",
                         MeterId="", MeterName="", UnitOfMeasure="1 Hour", Quantity="0.125",
                         EffectivePrice="40.00", CostInBillingCurrency="5.00", ConsumedService="Microsoft.BillingBenefits",
                         ProductOrderId=SP_ORDER, ProductOrderName="Compute Savings Plan, 3 Years", Term="36",
                         ChargeType="UnusedSavingsPlan", Frequency="UsageBased", PricingModel="SavingsPlan",
                         benefitId=SP_BENEFIT, benefitName="compute-sp-3y"))
    else:
        rows.append(dict(EA_BASE, SubscriptionId=SUB_INF, SubscriptionName="inference-prod", ResourceLocation="eastus",
                         Date="09/01/2024", ProductName="Reserved VM Instance, Standard_ND96isr_H100_v5, US East, 1 Year",
                         MeterCategory="", MeterSubCategory="", MeterId="", MeterName="", UnitOfMeasure="1 Hour",
                         Quantity="1", EffectivePrice="44208.00", CostInBillingCurrency="44208.00",
                         ConsumedService="Microsoft.Capacity", ReservationId=RI_ID, ReservationName="ND96isr_H100_v5_1y_eastus",
                         UnitPrice="44208.00", ProductOrderId=RI_ORDER, ProductOrderName="Reserved VM Instance, Standard_ND96isr_H100_v5, US East, 1 Year",
                         Term="12", ChargeType="Purchase", Frequency="Recurring", PricingModel="Reservation",
                         PayGPrice="0", benefitId=RI_BENEFIT, benefitName="ND96isr_H100_v5_1y_eastus"))
        rows.append(dict(EA_BASE, SubscriptionId=SUB_INF, SubscriptionName="inference-prod", ResourceLocation="",
                         Date="09/01/2024", ProductName="Compute Savings Plan, 3 Years", UnitOfMeasure="1 Hour",
                         Quantity="720", EffectivePrice="40.00", CostInBillingCurrency="28800.00",
                         ConsumedService="Microsoft.BillingBenefits", UnitPrice="40.00", ProductOrderId=SP_ORDER,
                         ProductOrderName="Compute Savings Plan, 3 Years", Term="36", ChargeType="Purchase",
                         Frequency="Recurring", PricingModel="SavingsPlan", PayGPrice="0", benefitId=SP_BENEFIT,
                         benefitName="compute-sp-3y"))
        rows.append(dict(EA_BASE, SubscriptionId=SUB_ML, ResourceLocation="", Date="09/09/2024",
                         ProductName="Reserved VM Instance, Standard_NC24ads_A100_v4, US East, 1 Year",
                         UnitOfMeasure="1 Hour", Quantity="-1", EffectivePrice="1250.00", CostInBillingCurrency="-1250.00",
                         ConsumedService="Microsoft.Capacity", ReservationId="e9f8a7b6-c5d4-4e3f-a2b1-c0d9e8f7a6b5",
                         ReservationName="NC24ads_A100_v4_1y", UnitPrice="1250.00",
                         ProductOrderId="b7c6d5e4-f3a2-4b1c-9d8e-7f6a5b4c3d2e", Term="12", ChargeType="Refund",
                         Frequency="OneTime", PricingModel="Reservation", PayGPrice="0"))
        rows.append(dict(EA_BASE, SubscriptionId=SUB_ML, ResourceLocation="", Date="09/30/2024",
                         ProductName="Rounding Adjustment", Quantity="1", EffectivePrice="-0.0036",
                         CostInBillingCurrency="-0.0036", ChargeType="RoundingAdjustment", Frequency="OneTime",
                         UnitPrice="0", PayGPrice="0"))
        rows.append(dict(EA_BASE, SubscriptionId=SUB_ML, ResourceGroup="ml-tools", ResourceLocation="eastus",
                         Date="09/03/2024", ProductName="NVIDIA AI Enterprise - Monthly Subscription",
                         MeterCategory="", UnitOfMeasure="1 Month", Quantity="1", EffectivePrice="2500.00",
                         CostInBillingCurrency="2500.00", ConsumedService="", PublisherType="Marketplace",
                         PublisherName="NVIDIA", PlanName="nvaie-monthly", ChargeType="Purchase", Frequency="Recurring",
                         PricingModel="OnDemand", UnitPrice="2500.00", PayGPrice="2500.00", IsAzureCreditEligible="False",
                         Tags='"team": "ml-platform"'))
    return rows


# ---------------------------------------------------------------- MCA, EUR billing, USD pricing
RATE = D("0.9183")


def mca_row(**kw):
    price, unit_price, qty = kw.pop("price"), kw.pop("unit_price"), kw.pop("qty")
    eff = kw.pop("eff", unit_price)
    pricing_cost = kw.pop("pricing_cost", eff * qty)
    r = {"invoiceId": "", "previousInvoiceId": "", "billingAccountId": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d:6f7e8d9c-0b1a-4c2d-8e3f-9a0b1c2d3e4f_2019-05-31",
         "billingAccountName": "Fabrikam GmbH", "billingProfileId": "ABCD-EF12-GH3-IJK4", "billingProfileName": "Fabrikam EU",
         "invoiceSectionId": "WXYZ-1234-PQR-STUV", "invoiceSectionName": "Research", "costCenter": "R-200",
         "billingPeriodEndDate": "2024-09-30", "billingPeriodStartDate": "2024-09-01", "servicePeriodEndDate": "2024-09-30",
         "servicePeriodStartDate": "2024-09-01", "date": "2024-09-14", "serviceFamily": "Compute",
         "SubscriptionId": "d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a", "subscriptionName": "fabrikam-ai",
         "publisherType": "Microsoft", "publisherName": "Microsoft", "resourceLocation": "westeurope", "location": "EU West",
         "unitOfMeasure": "1 Hour", "chargeType": "Usage", "billingCurrency": "EUR", "pricingCurrency": "USD",
         "exchangeRatePricingToBilling": q(RATE), "exchangeRateDate": "2024-09-01", "isAzureCreditEligible": "True",
         "frequency": "UsageBased", "pricingModel": "OnDemand", "provider": "Azure"}
    r.update(kw)
    r.update({"effectivePrice": q(eff), "quantity": q(qty), "unitPrice": q(unit_price), "PayGPrice": q(price),
              "costInPricingCurrency": q(pricing_cost), "costInBillingCurrency": q((pricing_cost * RATE).quantize(D("1e-10"))),
              "costInUsd": q(pricing_cost), "paygCostInUsd": q(price * qty),
              "paygCostInBillingCurrency": q((price * qty * RATE).quantize(D("1e-10")))})
    return r


def mca_vm(vm, size, meter_sub, meter, price, qty, tags, rg="fab-ml", **kw):
    sub = "d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a"
    return mca_row(price=price, unit_price=price, qty=qty, consumedService="Microsoft.Compute",
                   meterId=f"mca-meter-{size.lower()}", meterName=meter, meterCategory="Virtual Machines",
                   meterSubCategory=meter_sub, meterRegion="EU West", ProductId=f"DZH318Z0{len(meter):04d}",
                   ProductName=f"Virtual Machines {meter_sub} - {meter} - EU West", resourceGroupName=rg,
                   ResourceId=rid(sub, rg, "Microsoft.Compute/virtualMachines", vm),
                   additionalInfo=vm_info(size, 24), tags=tags, **kw)


def mca_rows():
    return [
        mca_vm("fab-a100-01", "Standard_NC24ads_A100_v4", "NCadsA100v4 Series", "NC24ads A100 v4", D("4.048"), D(24),
               '{"team":"vision","project":"segmentation"}'),
        mca_vm("fab-h100-01", "Standard_NC40ads_H100_v5", "NCadsH100v5 Series", "NC40ads H100 v5", D("7.752"), D("19.5"),
               '{"team":"nlp","project":"translation","cost center":"R-200"}', pricingModel="SavingsPlan", eff=D(0),
               benefitId=SP_BENEFIT.replace(SP_ID, "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9"), benefitName="eu-compute-sp"),
        mca_vm("fab-spot-t4-03", "Standard_NC16as_T4_v3", "NCasT4 v3 Series", "NC16as T4 v3 Spot", D("0.4123"), D("11"),
               '{"team":"vision","priority":"batch"}', pricingModel="Spot"),
        mca_row(price=D(0), unit_price=D("2105.28"), qty=D(1), chargeType="Purchase", frequency="Recurring",
                pricingModel="SavingsPlan", consumedService="Microsoft.BillingBenefits", ProductName="Compute Savings Plan, 1 Year",
                productOrderId="9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b", productOrderName="eu-compute-sp", term="12",
                benefitId=SP_BENEFIT.replace(SP_ID, "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9"), benefitName="eu-compute-sp",
                date="2024-09-01", unitOfMeasure="1 Hour", resourceLocation="", location=""),
        mca_row(price=D("0.0208"), unit_price=D("0.0208"), qty=D("1430.25"), consumedService="Microsoft.Storage",
                meterId="mca-meter-hot-lrs", meterName="Hot LRS Data Stored", meterCategory="Storage",
                meterSubCategory="Blob Storage", meterRegion="EU West", ProductId="DZH318Z0BPVW",
                ProductName="Blob Storage - Hot LRS - EU West", resourceGroupName="fab-data",
                ResourceId=rid("d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a", "fab-data", "Microsoft.Storage/storageAccounts", "fabtraindata"),
                unitOfMeasure="1 GB/Month", serviceFamily="Storage", tags='{"team":"vision"}'),
    ]


# ---------------------------------------------------------------- pay-as-you-go usage 2019-11-01
PAYG_COLS = """SubscriptionGuid ResourceGroup ResourceLocation UsageDateTime MeterCategory MeterSubCategory MeterId
MeterName MeterRegion UsageQuantity ResourceRate PreTaxCost ConsumedService ResourceType InstanceId Tags OfferId
AdditionalInfo ServiceInfo1 ServiceInfo2 ServiceName ServiceTier Currency UnitOfMeasure""".split()
assert len(PAYG_COLS) == 24


def payg_rows():
    sub = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    base = {"SubscriptionGuid": sub, "OfferId": "MS-AZR-0003P", "Currency": "GBP", "UnitOfMeasure": "1 Hour",
            "UsageDateTime": "2024-09-14T00:00:00.0000000Z"}
    return [
        dict(base, ResourceGroup="Research-GPU", ResourceLocation="UK South", MeterCategory="Virtual Machines",
             MeterSubCategory="NCSv3 Series", MeterId="payg-nc6sv3", MeterName="NC6s v3", MeterRegion="UK South",
             UsageQuantity="24", ResourceRate="2.6436", PreTaxCost="63.4464", ConsumedService="Microsoft.Compute",
             ResourceType="Microsoft.Compute/virtualMachines",
             InstanceId=rid(sub, "Research-GPU", "Microsoft.Compute/virtualMachines", "V100-Box"),
             Tags='{"Team":"Genomics"}', AdditionalInfo=vm_info("Standard_NC6s_v3", 6), ServiceName="Virtual Machines",
             ServiceTier="NCSv3 Series"),
        dict(base, ResourceGroup="Research-GPU", ResourceLocation="uksouth", MeterCategory="Virtual Machines",
             MeterSubCategory="NCasT4 v3 Series Windows", MeterId="payg-nc4ast4", MeterName="NC4as T4 v3",
             MeterRegion="UK South", UsageQuantity="9.75", ResourceRate="0.5631", PreTaxCost="5.490225",
             ConsumedService="Microsoft.Compute", ResourceType="Microsoft.Compute/virtualMachines",
             InstanceId=rid(sub, "Research-GPU", "Microsoft.Compute/virtualMachines", "t4-viz"),
             Tags="", AdditionalInfo="", ServiceName="Virtual Machines", ServiceTier="NCasT4 v3 Series Windows"),
        dict(base, ResourceGroup="Research-GPU", ResourceLocation="UK South", MeterCategory="Storage",
             MeterSubCategory="Standard SSD Managed Disks", MeterId="payg-e10", MeterName="E10 LRS Disk",
             MeterRegion="UK South", UsageQuantity="0.0333333", ResourceRate="7.68", PreTaxCost="0.25599974",
             ConsumedService="Microsoft.Compute", ResourceType="Microsoft.Compute/disks",
             InstanceId=rid(sub, "Research-GPU", "Microsoft.Compute/disks", "V100-Box_OsDisk"), UnitOfMeasure="1/Month",
             Tags='{"Team":"Genomics"}', ServiceName="Storage", ServiceTier="Standard SSD Managed Disks"),
    ]


# ---------------------------------------------------------------- EA portal download, spaced older names
PORTAL_COLS = ["Department Name", "Account Name", "Account Owner Id", "Subscription Guid", "Subscription Name", "Date",
               "Product", "Meter ID", "Meter Category", "Meter Sub-Category", "Meter Region", "Meter Name",
               "Consumed Quantity", "Resource Rate", "Cost", "Resource Location", "Consumed Service", "Instance ID",
               "Service Info 1", "Service Info 2", "Additional Info", "Tags", "Unit Of Measure", "Resource Group",
               "Reservation Id", "Reservation Name", "Product Order Id", "Charge Type", "Frequency", "Currency"]


def portal_rows():
    sub = "77a1b2c3-d4e5-4f60-8172-a3b4c5d6e7f8"
    base = {"Department Name": "Research", "Account Name": "HPC", "Account Owner Id": "hpc@contoso.com",
            "Subscription Guid": sub, "Subscription Name": "hpc-2023", "Currency": "USD", "Unit Of Measure": "1 Hour",
            "Frequency": "UsageBased", "Charge Type": "Usage", "Consumed Service": "Microsoft.Compute",
            "Meter Category": "Virtual Machines", "Meter Region": "US West 2", "Resource Location": "US West 2",
            "Resource Group": "HPC-RG"}
    vm = lambda name: rid(sub, "HPC-RG", "Microsoft.Compute/virtualMachines", name)
    return [
        dict(base, Date="11/7/2023", Product="Virtual Machines NDasrA100v4 Series - ND96asr A100 v4 - US West 2",
             **{"Meter ID": "p-nd96asr", "Meter Sub-Category": "NDasrA100v4 Series", "Meter Name": "ND96asr A100 v4",
                "Consumed Quantity": "24", "Resource Rate": "27.197", "Cost": "652.728", "Instance ID": vm("nd-a100-node0"),
                "Additional Info": vm_info("Standard_ND96asr_v4", 96), "Tags": '"Project": "climate-model","Team": "HPC"'}),
        # reservation-covered usage, before BenefitId: ReservationId and ProductOrderId only
        dict(base, Date="11/7/2023", Product="Virtual Machines NDasrA100v4 Series - ND96asr A100 v4 - US West 2",
             **{"Meter ID": "p-nd96asr", "Meter Sub-Category": "NDasrA100v4 Series", "Meter Name": "ND96asr A100 v4",
                "Consumed Quantity": "24", "Resource Rate": "0", "Cost": "0", "Instance ID": vm("nd-a100-node1"),
                "Additional Info": vm_info("Standard_ND96asr_v4", 96), "Tags": '"Project": "climate-model","Team": "HPC"',
                "Reservation Id": "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f", "Reservation Name": "ND96asr_v4_3y",
                "Product Order Id": "8a9b0c1d-2e3f-4a5b-6c7d-8e9f0a1b2c3d"}),
        dict(base, Date="11/8/2023", Product="Virtual Machines NCv3 Series Low Priority - NC24s v3 Low Priority - US West 2",
             **{"Meter ID": "p-nc24sv3-lp", "Meter Sub-Category": "NCSv3 Series", "Meter Name": "NC24s v3 Low Priority",
                "Consumed Quantity": "12.5", "Resource Rate": "2.2032", "Cost": "27.54", "Instance ID": vm("lowpri-v100"),
                "Additional Info": "", "Tags": ""}),
    ]


write("ea_actual.csv", EA_COLS, ea_rows(False))
write("ea_amortized.csv", EA_COLS + ["x_FinanceAlias"], [dict(r, x_FinanceAlias="fin-ml") for r in ea_rows(True)], crlf=True)
write("mca_actual_eur.csv", MCA_COLS, mca_rows(), bom=True)
write("payg_usage_gbp.csv", PAYG_COLS, payg_rows())
write("ea_portal_legacy.csv", PORTAL_COLS, portal_rows())
print("ok")
