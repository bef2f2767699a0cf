import { routeDifferences } from '../../domain/quoted-route';

const pickup = { lat: 5.5497, lng: -0.2096 };
const osu = { lat: 5.556, lng: -0.1823 };
const legon = { lat: 5.6508, lng: -0.1869 };
const airport = { lat: 5.6052, lng: -0.1668 };

describe('a booking’s route against its quote', () => {
  it('finds nothing when pickup, stops and drop-off are the quoted ones', () => {
    expect(routeDifferences([pickup, osu, airport], [{ ...pickup }, { ...osu }, { ...airport }])).toEqual({});
  });

  it('names each coordinate that differs by the booking’s field', () => {
    const moved = routeDifferences([pickup, osu, legon, airport], [{ ...pickup, lng: -0.21 }, osu, { ...legon, lat: 5.65 }, { lat: 5.6, lng: -0.17 }]);
    expect(moved).toEqual({
      pickup_lng: 'differs from the quoted route',
      'additional_stops[1].dropoff_lat': 'differs from the quoted route',
      dropoff_lat: 'differs from the quoted route',
      dropoff_lng: 'differs from the quoted route',
    });
  });

  it('names the stops when their number differs, and the drop-off still by itself', () => {
    expect(routeDifferences([pickup, osu, airport], [pickup, airport])).toEqual({
      additional_stops: 'the quote was for 1 additional stop, not 0',
    });
    expect(routeDifferences([pickup, airport], [pickup, osu, legon])).toEqual({
      additional_stops: 'the quote was for 0 additional stops, not 1',
      dropoff_lat: 'differs from the quoted route',
      dropoff_lng: 'differs from the quoted route',
    });
  });

  it('finds stops swapped in order', () => {
    expect(Object.keys(routeDifferences([pickup, osu, legon, airport], [pickup, legon, osu, airport]))).toEqual([
      'additional_stops[0].dropoff_lat',
      'additional_stops[0].dropoff_lng',
      'additional_stops[1].dropoff_lat',
      'additional_stops[1].dropoff_lng',
    ]);
  });
});
