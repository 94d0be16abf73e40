/**
 * @peculiar/x509, loaded after the `Reflect` metadata polyfill that its dependency-injection
 * container (tsyringe) requires. Import x509 through this module, never directly, so the
 * polyfill is always in place first. (x509 1.x, which @simplewebauthn/server loads, installs
 * the same polyfill itself; 2.x leaves it to the application.)
 */
import "reflect-metadata"
export {
  AuthorityInfoAccessExtension, AuthorityKeyIdentifierExtension, BasicConstraintsExtension, CRLDistributionPointsExtension, ExtendedKeyUsage, ExtendedKeyUsageExtension,
  Extension, KeyUsageFlags, KeyUsagesExtension, Name, SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension, X509Certificate, X509CertificateGenerator, X509Crl, X509CrlGenerator,
} from "@peculiar/x509"
export type { JsonNameParams } from "@peculiar/x509"
