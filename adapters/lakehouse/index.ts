export { type GatewayClientOptions, GatewayLakehouse } from "./gateway-client.ts";
