import { boxAround, cellBands, CELLS_PER_DEGREE, type LatLng } from '../../domain/geo';

// Dispatch reads riders by the bands of grid cells a round's box touches; a rider's cell is the
// number the riders table's generated column gives its position.
const cellOf = (p: LatLng) => Math.floor(p.lat * CELLS_PER_DEGREE) * 100_000 + Math.floor(p.lng * CELLS_PER_DEGREE);
const inABand = (bands: { first: number[]; last: number[] }, cell: number) =>
  bands.first.some((first, i) => cell >= first && cell <= (bands.last[i] as number));

describe('the cell bands of a dispatch round', () => {
  const makola: LatLng = { lat: 5.5497, lng: -0.2079 };

  it('are one band a row of cells: 54 or 55 for a 15 km round where the cells are about 3,000', () => {
    const bands = cellBands(boxAround(makola, 15));
    // The box is 0.27° tall: 54 rows of 1/200°, one more where its edges cut rows at both ends.
    expect([54, 55]).toContain(bands.first.length);
    expect(bands.last).toHaveLength(bands.first.length);
    const cells = bands.first.reduce((sum, first, i) => sum + (bands.last[i] as number) - first + 1, 0);
    expect(cells).toBeGreaterThan(2_900);
    expect(cells).toBeLessThan(3_200);
  });

  it('hold the cell of every point in the box, west of Greenwich and east of it', () => {
    for (const centre of [makola, { lat: 6.1, lng: 0.05 }, { lat: 5.6, lng: -0.004 }]) {
      const box = boxAround(centre, 1.5);
      const bands = cellBands(box);
      for (let i = 0; i <= 20; i++) {
        for (let j = 0; j <= 20; j++) {
          const point = { lat: box.south + ((box.north - box.south) * i) / 20, lng: box.west + ((box.east - box.west) * j) / 20 };
          expect({ point, inABand: inABand(bands, cellOf(point)) }).toEqual({ point, inABand: true });
        }
      }
    }
  });

  it('hold no cell outside the box, in its rows or beside them', () => {
    const box = boxAround(makola, 1.5);
    const bands = cellBands(box);
    const cell = 1 / CELLS_PER_DEGREE;
    const outside = [
      { lat: makola.lat, lng: box.west - cell },
      { lat: makola.lat, lng: box.east + cell },
      { lat: box.north + cell, lng: makola.lng },
      { lat: box.south - cell, lng: makola.lng },
    ];
    for (const point of outside) expect({ point, inABand: inABand(bands, cellOf(point)) }).toEqual({ point, inABand: false });
  });
});
