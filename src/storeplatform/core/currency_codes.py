"""The ISO 4217 alphabetic codes of the currencies in circulation, the values of a ``currency``
option. ISO 4217 List One as amended to 2025 (XCG replacing ANG, ZWG replacing ZWL; BGN, HRK
and the other currencies the euro replaced are gone), without the codes nobody prices in: the
funds codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, bond-market units,
the SDR and ADB units, and the testing and "no currency" codes (XTS, XXX). A currency added by
a later amendment is one more word here."""

CURRENCY_CODES = frozenset("""
AED AFN ALL AMD AOA ARS AUD AWG AZN
BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
CAD CDF CHF CLP CNY COP CRC CUP CVE CZK
DJF DKK DOP DZD
EGP ERN ETB EUR
FJD FKP
GBP GEL GHS GIP GMD GNF GTQ GYD
HKD HNL HTG HUF
IDR ILS INR IQD IRR ISK
JMD JOD JPY
KES KGS KHR KMF KPW KRW KWD KYD KZT
LAK LBP LKR LRD LSL LYD
MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN
NAD NGN NIO NOK NPR NZD
OMR
PAB PEN PGK PHP PKR PLN PYG
QAR
RON RSD RUB RWF
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
THB TJS TMT TND TOP TRY TTD TWD TZS
UAH UGX USD UYU UZS
VED VES VND VUV
WST
XAF XCD XCG XOF XPF
YER
ZAR ZMW ZWG
""".split())
