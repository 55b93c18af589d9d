export { CompanyDirectory, type CompanyInfo, findReferenceFile } from "./companies.ts";
export { MarketData } from "./market.ts";
