/**
 * The codes an MRZ may carry as issuing state or nationality (ICAO Doc 9303 Part 3, section 5):
 * every ISO 3166-1 alpha-3 country code, and the codes ICAO adds for documents that ISO 3166
 * does not cover. Pure data; a code not listed here is a misread (or not a travel document).
 */

/**
 * ISO 3166-1 alpha-3, all 249 officially assigned codes, as shipped by Debian's `iso-codes`
 * 4.15.0 (`/usr/share/iso-codes/json/iso_3166-1.json`, which follows the ISO 3166 Maintenance Agency).
 */
const ISO_3166_ALPHA3: ReadonlyArray<string> = `
  ABW AFG AGO AIA ALA ALB AND ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE BDI BEL BEN
  BES BFA BGD BGR BHR BHS BIH BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA CAF CAN
  CCK CHE CHL CHN CIV CMR COD COG COK COL COM CPV CRI CUB CUW CXR CYM CYP CZE DEU
  DJI DMA DNK DOM DZA ECU EGY ERI ESH ESP EST ETH FIN FJI FLK FRA FRO FSM GAB GBR
  GEO GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF GUM GUY HKG HMD HND HRV
  HTI HUN IDN IMN IND IOT IRL IRN IRQ ISL ISR ITA JAM JEY JOR JPN KAZ KEN KGZ KHM
  KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE LKA LSO LTU LUX LVA MAC MAF MAR MCO MDA
  MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ MUS MWI MYS MYT NAM
  NCL NER NFK NGA NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PCN PER PHL PLW PNG POL
  PRI PRK PRT PRY PSE PYF QAT REU ROU RUS RWA SAU SDN SEN SGP SGS SHN SJM SLB SLE
  SLV SMR SOM SPM SRB SSD STP SUR SVK SVN SWE SWZ SXM SYC SYR TCA TCD TGO THA TJK
  TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI URY USA UZB VAT VCT VEN VGB
  VIR VNM VUT WLF WSM YEM ZAF ZMB ZWE
`
  .trim()
  .split(/\s+/)

/**
 * ICAO 9303 Part 3's own codes: Germany's one-letter `D`, the British nationality classes, the
 * United Nations, Kosovo, stateless persons and refugees, and the organisations that issue
 * travel documents. ICAO's specimen state `UTO` (Utopia) is deliberately absent: a specimen is
 * not a document.
 */
const ICAO_CODES: ReadonlyArray<string> = [
  "D", // Germany
  "EUE", // European Union (laissez-passer)
  "GBD", // British Overseas Territories Citizen
  "GBN", // British National (Overseas)
  "GBO", // British Overseas Citizen
  "GBP", // British Protected Person
  "GBS", // British Subject
  "RKS", // Kosovo (as issued by Kosovo)
  "UNA", // specialized agency of the United Nations
  "UNK", // resident of Kosovo (UNMIK travel document)
  "UNO", // United Nations Organization
  "XBA", // African Development Bank
  "XCC", // Caribbean Community (CARICOM)
  "XCE", // Council of Europe
  "XCO", // Common Market for Eastern and Southern Africa (COMESA)
  "XEC", // Economic Community of West African States (ECOWAS)
  "XIM", // African Export-Import Bank
  "XOM", // Sovereign Military Order of Malta
  "XPO", // Interpol
  "XES", // Organisation of Eastern Caribbean States
  "XXA", // stateless person (1954 Convention)
  "XXB", // refugee (1951 Convention)
  "XXC", // refugee (other)
  "XXX", // nationality unspecified
]

const CODES: ReadonlySet<string> = new Set([...ISO_3166_ALPHA3, ...ICAO_CODES])

/**
 * Whether a three-character MRZ state field (`NLD`, `D<<`) is a code ICAO 9303 allows: letters
 * first, fillers only after them, and the letters a listed code.
 */
export const isMrzStateCode = (field: string): boolean => /^[A-Z]{1,3}<*$/.test(field) && field.length === 3 && CODES.has(field.replace(/<+$/, ""))
