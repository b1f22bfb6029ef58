// Package awsprices reads AWS GPU instance prices from the AWS Price List Query API and the
// spot prices of EC2.
//
// GetProducts (AWSPriceListService.GetProducts, AWS JSON 1.1, SigV4-signed, endpoint
// api.pricing.us-east-1.amazonaws.com) takes ServiceCode "AmazonEC2", FormatVersion "aws_v1",
// Filters [{Type "TERM_MATCH", Field, Value}] and NextToken; it returns FormatVersion,
// NextToken and PriceList, a list of JSON documents in strings. Each has product
// {productFamily, attributes {instanceType, gpu, gpuMemory, regionCode, operatingSystem,
// tenancy, preInstalledSw, capacitystatus, instanceFamily, …}} and terms {OnDemand {term
// {priceDimensions {rate {unit "Hrs", pricePerUnit {USD "98.3200000000"}}}}}}. Sources: the AWS
// CLI reference for pricing get-products, https://docs.aws.amazon.com/goto/aws-cli/pricing-2017-10-15/GetProducts,
// and the GetProducts request and response shapes of the SDKs (FormatVersion valid value aws_v1).
//
// DescribeSpotPriceHistory (EC2 query API, version 2016-11-15) takes InstanceType.N,
// ProductDescription.N ("Linux/UNIX"), StartTime and NextToken and returns spotPriceHistorySet
// items {instanceType, productDescription, spotPrice, timestamp, availabilityZone}; with a
// start time of now it gives the price in effect in each zone. Source: "DescribeSpotPriceHistory",
// Amazon EC2 API reference, and the SDK for .NET's DescribeSpotPriceHistoryRequest,
// https://docs.aws.amazon.com/sdkfornet/v3/apidocs/items/EC2/TDescribeSpotPriceHistoryRequest.html.
//
// Both calls go through internal/awsrpc, which signs them with the AWS SDK's SigV4 signer and
// retries throttling as the SDK does; BaseURL points both at another endpoint.
// Prices are decimal strings in the responses and are parsed exactly.
package awsprices
