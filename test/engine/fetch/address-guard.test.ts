import { describe, expect, it } from 'vitest';
import { checkAddress, parseIpLiteral } from '../../../src/engine/fetch/address-guard.js';

describe('checkAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.10',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.2.1',
    '100.100.100.200',
    '168.63.129.16',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '2001:0::1',
    '::127.0.0.1',
  ];
  for (const ip of refused) {
    it(`refuses ${ip}`, () => {
      const v = checkAddress(ip);
      expect(v.allowed).toBe(false);
    });
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e']) {
    it(`allows ${ip}`, () => expect(checkAddress(ip)).toEqual({ allowed: true }));
  }
  it('names the reason', () => {
    expect(checkAddress('127.0.0.1')).toEqual({ allowed: false, reason: 'a loopback address' });
    expect(checkAddress('169.254.169.254')).toEqual({ allowed: false, reason: 'a link-local address' });
    expect(checkAddress('100.64.1.1')).toEqual({ allowed: false, reason: 'a CGNAT address' });
    expect(checkAddress('not-an-ip').allowed).toBe(false);
  });
});

describe('parseIpLiteral', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
  ])('%s → %s', (host, ip) => {
    expect(parseIpLiteral(host)).toBe(ip);
    expect(checkAddress(parseIpLiteral(host)!).allowed).toBe(false);
  });
  it('returns undefined for names', () => expect(parseIpLiteral('example.com')).toBeUndefined());
});
