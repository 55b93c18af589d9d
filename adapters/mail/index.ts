export { SmtpMailer, type SmtpMailerOptions } from "./smtp.ts";
