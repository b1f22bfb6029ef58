// Package azureprices reads Azure GPU VM prices from the Azure Retail Prices API.
//
// The API is unauthenticated: GET https://prices.azure.com/api/retail/prices with an OData
// $filter (serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and armRegionName
// eq 'eastus'; values are case-sensitive from API version 2023-01-01-preview on) and a
// currencyCode parameter (USD by default). A response has Items[], Count and NextPageLink, the
// absolute URL of the next page (null on the last). Each item has currencyCode, retailPrice,
// unitPrice, armRegionName, location, effectiveStartDate, meterName, productName, skuName,
// serviceName, unitOfMeasure ("1 Hour"), type ("Consumption", "Reservation",
// "DevTestConsumption") and armSkuName ("Standard_NC24ads_A100_v4"). Spot meters have "Spot"
// in skuName and meterName, low-priority ones "Low Priority"; Windows meters have a
// productName ending in " Windows".
// Source: "Azure Retail Prices overview",
// https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices
// (the example response with BillingCurrency, Items, NextPageLink and Count is also quoted in
// https://learn.microsoft.com/en-us/answers/questions/348412).
//
// The API says nothing about GPUs; the Client's GPUs func (the catalog's Azure N-series sizes)
// tells GPU VM sizes from others. Prices are parsed exactly from the JSON number text.
package azureprices
