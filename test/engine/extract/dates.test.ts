/** Dates in the forms pages write them, read as ISO 8601. */
import { describe, expect, it } from 'vitest';
import { normaliseDate } from '../../../src/engine/extract/dates.js';

describe('normaliseDate', () => {
  it('keeps ISO dates as written and reads dates out of words, slashes and dots', () => {
    const cases: [unknown, string | undefined][] = [
      ['2016-05-08T00:55:00-07:00', '2016-05-08T00:55:00-07:00'],
      ['2017-03-10', '2017-03-10'],
      ['2015-04-08 12:46:00', '2015-04-08T12:46:00'],
      ['April 5, 2018', '2018-04-05'],
      ['Oct. 13 2016', '2016-10-13'],
      ['15. Oktober 2019', '2019-10-15'],
      ['5 de abril de 2018', '2018-04-05'],
      ['1er mai 2020', '2020-05-01'],
      ['2/26/2015 7:11 AM PST BY TMZ STAFF', '2015-02-26'],
      ['05/29/2007 09:49:00', '2007-05-29'],
      ['15.10.2019', '2019-10-15'],
      ['2019年10月15日', '2019-10-15'],
      ['Thu, 13 Oct 2016 17:00:03 GMT', '2016-10-13T17:00:03.000Z'],
      [1476378003, '2016-10-13T17:00:03.000Z'],
      [1597311061478, '2020-08-13T09:31:01.478Z'],
    ];
    for (const [input, want] of cases) expect(normaliseDate(input), String(input)).toBe(want);
  });

  it('answers nothing for text without a whole date, impossible dates and ambiguous day/month order', () => {
    for (const input of ['28', '12:55 AM', 'yesterday', '31 April 2020', '2020-13-01', '05/06/2007', 42, ''])
      expect(normaliseDate(input), String(input)).toBeUndefined();
  });
});
